package rt

import (
	"testing"
	"time"
)

// TestOutsideClock: in a process that stdbg runs, readings outside a
// check start at the epoch and grow by ReadStep each and by the time
// slept, and executions' clocks start after the readings taken before
// the first of them, at one time however the clock outside moves on;
// elsewhere the real clock is read and executions start at the epoch.
func TestOutsideClock(t *testing.T) {
	was, clk, b, bd := outsideVirtual, outsideClock.Load(), clockBase.Load(), based.Load()
	t.Cleanup(func() { outsideVirtual = was; outsideClock.Store(clk); clockBase.Store(b); based.Store(bd) })
	reset := func(virtual bool) {
		outsideVirtual = virtual
		outsideClock.Store(0)
		clockBase.Store(0)
		based.Store(false)
	}

	reset(false)
	if at, ok := OutsideRead(); ok {
		t.Fatalf("outside stdbg: a virtual reading %d", at)
	}
	if b := base(); b != 0 {
		t.Fatalf("outside stdbg: executions start %d after the epoch", b)
	}

	reset(true)
	first, ok := OutsideRead()
	if !ok || first != ReadStep {
		t.Fatalf("first reading %d, %v; want %d", first, ok, int64(ReadStep))
	}
	second, _ := OutsideRead()
	if second-first != ReadStep {
		t.Errorf("two readings in a row: %d then %d; want %d apart", first, second, int64(ReadStep))
	}
	OutsideSlept(int64(time.Millisecond))
	OutsideSlept(-5) // a negative sleep does not move it back
	third, _ := OutsideRead()
	if d := third - second; d != int64(time.Millisecond)+ReadStep {
		t.Errorf("a reading after a sleep of 1ms: %v later; want 1ms + ReadStep", time.Duration(d))
	}
	if b := base(); b < third {
		t.Errorf("executions start at %d, before the reading %d taken before them", b, third)
	}
	OutsideRead()
	OutsideSlept(int64(time.Second))
	if b2 := base(); b2 != base() || b2 != third {
		t.Errorf("executions of one process start at %d, then %d; want %d for all", third, b2, third)
	}
}
