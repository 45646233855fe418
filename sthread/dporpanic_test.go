package sthread_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// raceBeforePanic panics unless the goroutine it starts ran first, and
// reads what the goroutine writes with no synchronisation between: the
// race shows only in the schedules where the goroutine runs its whole
// section before the checked function's Lock, whose transition reads and
// panics. Every operation of the goroutine is independent of that Lock.
func raceBeforePanic() {
	var mu, other sthread.Mutex
	n := 0
	sthread.Go(func() {
		other.Lock()
		n = 1
		other.Unlock()
	})
	mu.Lock()
	if n == 0 {
		panic("the goroutine has not run")
	}
}

// behindPanicEnv marks the process that TestDPORRaceBeforePanic starts.
const behindPanicEnv = "STDBG_TEST_BEHIND_PANIC"

// TestDPORRaceBeforePanic: a panic ends its execution, and DPOR must still
// run the schedules in which another goroutine goes on before the
// panicking step, when what it does there can change what that step's
// transition shows (here a data race, which the race detector reports
// once both accesses ran). Every schedule (no reduction) finds the panic
// and the race; DPOR found the panic only, and said it was complete: the
// panicking step, in the sleep set where it had run first, was inherited
// by the points after the goroutine's steps, so that it never ran after
// them. The programs run in a process of their own, built with the race
// detector.
func TestDPORRaceBeforePanic(t *testing.T) {
	if s := os.Getenv(behindPanicEnv); s != "" {
		exploreBeforePanic(t, s)
		return
	}
	if testing.Short() {
		t.Skip("explores a program in a process of its own, built with the race detector")
	}
	// One process per search: the race detector reports a race once per
	// process.
	for _, name := range []string{"none", "dpor"} {
		cmd := invisibleChild(t, "TestDPORRaceBeforePanic")
		cmd.Env = append(cmd.Env, behindPanicEnv+"="+name)
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), "search "+name+": complete, bugs [crash data race]\n") {
			t.Errorf("the search with reduction %s does not find both bugs completely:\n%s", name, out)
		}
	}
}

// exploreBeforePanic explores raceBeforePanic with the search named (none
// or dpor) and says which bugs it found.
func exploreBeforePanic(t *testing.T, name string) {
	if !raceBuild {
		t.Fatal("not built with the race detector")
	}
	rt.HideRaces()
	opt := sthread.NoReduction()
	if name == "dpor" {
		opt = sthread.Strategy(search.NewDPOR())
	}
	res, err := sthread.Explore(raceBeforePanic, opt, sthread.All(), sthread.NoMinimise(), sthread.MaxExecutions(1000))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	seen := map[string]bool{}
	var kinds []string
	for _, b := range res.Bugs {
		k := "other"
		switch b.Kind {
		case search.Crash:
			k = "crash"
		case search.DataRace:
			k = "data race"
		}
		if !seen[k] {
			seen[k] = true
			kinds = append(kinds, k)
		}
	}
	slices.Sort(kinds)
	state := "incomplete"
	if res.Complete {
		state = "complete"
	}
	fmt.Fprintf(os.Stderr, "search %s: %s, bugs %v\n", name, state, kinds)
}
