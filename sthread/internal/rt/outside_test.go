package rt

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The fields of a real channel's descriptor that the runtime reads read
// right on this Go (they are checked as the package initialises, and not
// read if they do not: this test says when that happens).
func TestChannelDescriptor(t *testing.T) {
	if !hchanCounts || !hchanTimer {
		t.Fatalf("the channel descriptor reads wrong on this Go: counts %v, timer %v", hchanCounts, hchanTimer)
	}
	tests := []struct {
		name           string
		c              chan int
		closed, queued bool
	}{
		{"open", make(chan int), false, false},
		{"closed", func() chan int { c := make(chan int); close(c); return c }(), true, false},
		{"a value in its buffer", func() chan int { c := make(chan int, 3); c <- 1; return c }(), false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pi := plainInfo{hchan: hchanOf(tt.c)}
			ex := &Execution{gen: 7}
			if got := pi.closedOutside(ex); got != tt.closed {
				t.Errorf("closedOutside = %v", got)
			}
			if got := pi.fedOutside() != ""; got != tt.queued {
				t.Errorf("fedOutside = %q", pi.fedOutside())
			}
			pi.closedGen = ex.gen
			if pi.closedOutside(ex) {
				t.Error("closedOutside once the model has it closed")
			}
		})
	}
	tm := time.NewTimer(time.Hour)
	defer tm.Stop()
	if f := (&plainInfo{hchan: hchanOf(Bidi[time.Time](tm.C))}).fedOutside(); !strings.Contains(f, "timer") {
		t.Errorf("a real timer's channel: fedOutside = %q", f)
	}
}

// The id of a goroutine is read from its descriptor where the package
// found it as it initialised.
func TestGoidOf(t *testing.T) {
	if goidOffset < 0 {
		t.Fatal("the goroutine id is not found in the runtime's descriptor on this Go")
	}
	for range 3 {
		got := make(chan [2]uint64)
		go func() { got <- [2]uint64{goidOf(getg()), goid()} }()
		if ids := <-got; ids[0] != ids[1] {
			t.Fatalf("goidOf = %d, the stack says %d", ids[0], ids[1])
		}
	}
}

// A go statement made outside a check starts a goroutine that the runtime
// keeps a record of while it lives: where it was started, and who it is
// in race reports, even once it has ended.
func TestOutsider(t *testing.T) {
	release, started := make(chan struct{}), make(chan uint64)
	Go(func() {
		started <- goid()
		<-release
	})
	id := <-started
	live := liveOutsiders(true)
	// (Where: the first frame outside package rt, which this test is in:
	// the sthread tests check the line.)
	if !strings.Contains(live, fmt.Sprintf("goroutine %d, started at ", id)) || !strings.Contains(live, "before the check") {
		t.Errorf("live outsiders: %q", live)
	}
	rep := "WARNING: DATA RACE\nRead at 0x00c000 by goroutine 11:\n  main.TestX()\n      /m/x_test.go:27 +0x3e\n\n" +
		"Previous write at 0x00c000 by goroutine 7:\n  main.init.func1()\n      /m/x_test.go:16 +0x48\n  " +
		runOutsideName + "()\n      /s/outside.go:104 +0x172\n"
	if !raceWithOutsider(rep) {
		t.Errorf("a race with a goroutine started outside the check not recognised:\n%s", rep)
	}
	if other := strings.ReplaceAll(rep, runOutsideName, "main.worker"); raceWithOutsider(other) {
		t.Errorf("a race of other goroutines taken for one with a goroutine started outside the check:\n%s", other)
	}
	close(release)
	deadline := time.Now().Add(10 * time.Second)
	for liveOutsiders(true) != "" {
		if time.Now().After(deadline) {
			t.Fatalf("the goroutine ended, yet live outsiders: %q", liveOutsiders(true))
		}
		time.Sleep(time.Millisecond)
	}
}

// The scheduler describes the goroutines outside the check while the
// program runs, its own synchronisation hidden from the race detector
// (see race.go): nothing it shares with the program may look like a race
// to the detector. Package fmt's printers, which a sync.Pool shares, did:
// stdbg did not report that race, its own, but package testing failed
// the test under way (ants' TestPoolPanicWithoutHandler, whose pool's
// worker logs the panic it recovers).
func TestOutsidersHidingSynchronisation(t *testing.T) {
	if !raceOn {
		t.Skip("the race detector is off")
	}
	release, started := make(chan struct{}), make(chan uint64)
	Go(func() {
		started <- goid()
		<-release
	})
	<-started
	defer close(release)
	var pcs [1]uintptr
	runtime.Callers(1, pcs[:])
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	turn, done := make(chan bool), make(chan bool)
	go func() { // the scheduler
		raceDisable()
		defer raceEnable()
		for range 20 {
			if liveOutsiders(true) == "" || liveOutsiders(false) == "" || Locate(uint64(pcs[0])) == "" {
				panic("the goroutine outside the check is not described")
			}
			turn <- true
			<-turn
		}
		done <- true
	}()
	for range 20 { // the program
		<-turn
		if s := fmt.Sprint("x", 1); s != "x1" {
			t.Errorf("fmt.Sprint = %q", s)
		}
		turn <- true
	}
	<-done
}
