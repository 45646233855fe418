package targetproc_test

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// onlyCPU returns the one CPU pid may run on, or -1.
func onlyCPU(t *testing.T, pid int) int {
	t.Helper()
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(pid, &set); err != nil {
		t.Fatalf("affinity of %d: %v", pid, err)
	}
	if set.Count() != 1 {
		return -1
	}
	for c := 0; ; c++ {
		if set.IsSet(c) {
			return c
		}
	}
}

// TestPin runs a search with the checker's thread and the program placed
// on CPUs, apart and together: the program's fork server and executions
// stay on the target CPU, the checker's thread on its own and gets its CPUs
// back at Close, and the search is the same as an unplaced one.
func TestPin(t *testing.T) {
	cpus := targetproc.AllowedCPUs()
	exe, err := ctarget.Build(filepath.Join("..", "..", "examples", "c", "deadly-embrace.c"))
	if err != nil {
		t.Fatal(err)
	}
	search1 := func(pl *targetproc.Placement) *search.Result {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var before unix.CPUSet
		unix.SchedGetaffinity(0, &before)
		p, c := startChecker(t, exe, targetproc.Config{Flags: wire.FlagFastExit})
		if pl != nil {
			if err := p.Pin(*pl); err != nil {
				t.Fatal(err)
			}
		}
		e, err := c.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if pl != nil {
			if got := onlyCPU(t, p.Pid()); got != pl.Target {
				t.Errorf("fork server on CPU %d, want %d", got, pl.Target)
			}
			if got := onlyCPU(t, p.ChildPid()); got != pl.Target {
				t.Errorf("execution on CPU %d, want %d", got, pl.Target)
			}
			if got := onlyCPU(t, 0); got != pl.Checker {
				t.Errorf("checker thread on CPU %d, want %d", got, pl.Checker)
			}
		}
		e.Close()
		res, err := search.Explore(context.Background(), c, search.NewDFS(), search.Options{MaxDepth: 12, All: true})
		if err != nil {
			t.Fatal(err)
		}
		p.Close()
		var after unix.CPUSet
		unix.SchedGetaffinity(0, &after)
		if after != before {
			t.Errorf("the checker thread's CPUs after Close are %v, want %v back", after, before)
		}
		return res
	}
	want := search1(nil)
	if !want.Complete || len(want.Bugs) == 0 {
		t.Fatalf("unplaced search: complete %v with %d bugs, want the deadlock", want.Complete, len(want.Bugs))
	}
	places := []targetproc.Placement{{Checker: cpus[0], Target: cpus[0]}}
	if len(cpus) >= 2 {
		places = append(places, targetproc.Placement{Checker: cpus[0], Target: cpus[1]})
	} else {
		t.Log("one CPU: the checker and the program can only share it")
	}
	for _, pl := range places {
		got := search1(&pl)
		if got.Stats.Executions != want.Stats.Executions || got.Stats.Transitions != want.Stats.Transitions ||
			len(got.Bugs) != len(want.Bugs) || got.Bugs[0].Outcome.Kind != want.Bugs[0].Outcome.Kind ||
			got.Bugs[0].Schedule.String() != want.Bugs[0].Schedule.String() {
			t.Errorf("placed %+v: %d executions, %d transitions, %d bugs; unplaced: %d, %d, %d",
				pl, got.Stats.Executions, got.Stats.Transitions, len(got.Bugs),
				want.Stats.Executions, want.Stats.Transitions, len(want.Bugs))
		}
	}
}
