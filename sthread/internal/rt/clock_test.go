package rt

import (
	"testing"
	"time"
)

// TestOutsideClock: in a process that stdbg runs, readings outside a
// check start OutsideLead before the epoch of executions, grow by ReadStep
// each and by the time slept, and stay before the epoch; elsewhere the
// real clock is read.
func TestOutsideClock(t *testing.T) {
	was, clk := outsideVirtual, outsideClock.Load()
	t.Cleanup(func() { outsideVirtual = was; outsideClock.Store(clk) })

	outsideVirtual = false
	if at, ok := OutsideRead(); ok {
		t.Fatalf("outside stdbg: a virtual reading %d", at)
	}

	outsideVirtual = true
	outsideClock.Store(0)
	first, ok := OutsideRead()
	if !ok || first != -OutsideLead+ReadStep {
		t.Fatalf("first reading %d, %v; want %d", first, ok, -OutsideLead+ReadStep)
	}
	second, _ := OutsideRead()
	if second-first != ReadStep {
		t.Errorf("two readings in a row: %d then %d; want %d apart", first, second, int64(ReadStep))
	}
	OutsideSlept(int64(time.Millisecond))
	OutsideSlept(-5) // a sleep of a negative time does not move it back
	third, _ := OutsideRead()
	if d := third - second; d != int64(time.Millisecond)+ReadStep {
		t.Errorf("a reading after a sleep of 1ms: %v later; want 1ms + ReadStep", time.Duration(d))
	}
	if third >= 0 {
		t.Errorf("a reading outside a check (%d) is not before the epoch of executions", third)
	}
}
