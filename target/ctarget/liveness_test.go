package ctarget_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/ltl"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// startStateful starts exe with state reports (stateful search).
func startStateful(t *testing.T, exe string) *executor.Executor {
	t.Helper()
	p, err := ctarget.Start(targetproc.Config{Binary: exe, Flags: wire.FlagFastExit | wire.FlagState})
	if err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	t.Cleanup(func() { p.Close() })
	return executor.New(p, executor.Options{FastExit: true})
}

// statesAlong runs schedule s and returns the state hash at every
// scheduling point (the initial one, then one after each step).
func statesAlong(t *testing.T, c *executor.Executor, s string) []uint64 {
	t.Helper()
	e, err := c.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	sched, err := schedule.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	var out []uint64
	for i, st := range sched {
		x, ok := e.State()
		if !ok {
			t.Fatalf("%s: no state at step %d", s, i+1)
		}
		out = append(out, x.Hash)
		if err := e.Step(st); err != nil {
			t.Fatalf("%s: step %d: %v", s, i+1, err)
		}
	}
	if x, ok := e.State(); ok {
		out = append(out, x.Hash)
	}
	return out
}

func livenessExample(t *testing.T, name string) string {
	t.Helper()
	useExampleCache(t)
	exe, err := ctarget.Build(filepath.Join(examplesDir, "liveness", name))
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func TestFingerprintSameAndDifferent(t *testing.T) {
	c := startStateful(t, livenessExample(t, "spin-handoff.c"))
	// Thread 2 (the consumer) starts, then spins: every turn of its loop
	// comes back to the same state.
	spin := statesAlong(t, c, "1;1;2;2;2;2;2")
	for i := 4; i < len(spin); i++ {
		if spin[i] != spin[3] {
			t.Errorf("turn %d of the spin loop: state %x, want %x (the state before the loop)", i-3, spin[i], spin[3])
		}
	}
	// Every state of the path to the loop differs from the others.
	for i := range 4 {
		for j := range i {
			if spin[i] == spin[j] {
				t.Errorf("distinct states share a fingerprint: %x", spin[:4])
			}
		}
	}
	// The producer's write of data (in its start) changes the state, and
	// so does its write of the flag.
	prod := statesAlong(t, c, "1;1;3;3")
	if prod[3] == prod[2] || prod[4] == prod[3] {
		t.Errorf("writes of the producer do not change the fingerprint: %x", prod)
	}
	// Two orders of independent steps (a yield of medium, low taking
	// the bus) reach the same state.
	c2 := startStateful(t, livenessExample(t, "priority-inversion.c"))
	a := statesAlong(t, c2, "1;1;1;2;3;3;2")
	b := statesAlong(t, c2, "1;1;1;2;3;2;3")
	if a[len(a)-1] != b[len(b)-1] || a[len(a)-2] == b[len(b)-2] {
		t.Errorf("commuting steps: %x and %x, want different middles and the same end", a, b)
	}
}

// heapSpin mallocs and frees in a spin loop, and keeps a malloc'd counter
// that only the other thread changes.
const heapSpin = `#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
static int *counter;
static char *scratch;
static volatile int stop;
static void *spin(void *a) {
	(void)a;
	while (!stop) {
		free(scratch);
		scratch = malloc(100); /* never written: carries no meaning */
		*counter ^= 1;
		sched_yield();
	}
	return NULL;
}
int main(void) {
	counter = malloc(sizeof *counter);
	*counter = 0;
	pthread_t t;
	pthread_create(&t, NULL, spin, NULL);
	sched_yield();
	*counter = 1;
	sched_yield();
	stop = 1;
	pthread_join(t, NULL);
	free(counter);
	return 0;
}
`

func TestFingerprintHeap(t *testing.T) {
	useExampleCache(t)
	src := filepath.Join(t.TempDir(), "heap-spin.c")
	if err := os.WriteFile(src, []byte(heapSpin), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := ctarget.Build(src)
	if err != nil {
		t.Fatal(err)
	}
	c := startStateful(t, exe)
	// Thread 2 flips the heap counter at every turn: the states
	// alternate, whatever the allocator leaves in the scratch blocks.
	s := statesAlong(t, c, "1;2;2;2;2;2")
	if s[3] == s[2] {
		t.Errorf("a write to a heap block does not change the state: %x", s)
	}
	if s[4] != s[2] || s[5] != s[3] || s[6] != s[2] {
		t.Errorf("the spin does not come back to the same two states: %x", s)
	}
}

func exploreStateful(t *testing.T, c *executor.Executor, opts search.Options) *search.Result {
	t.Helper()
	if opts.MaxExecutions == 0 {
		opts.MaxExecutions = exampleExecutions // a bound that does not depend on the machine's speed
	}
	res, err := search.Explore(context.Background(), c, search.NewDFS(), opts)
	if err != nil {
		t.Fatalf("exploring: %v (after %d executions)", err, res.Stats.Executions)
	}
	return res
}

func TestVisitedEndsSpinLoops(t *testing.T) {
	exe := livenessExample(t, "spin-handoff.c")
	// Stateless, the consumer's spin runs to the depth bound (the first
	// executions show it).
	res := exploreStateful(t, startExample(t, exe), search.Options{MaxDepth: 30, MaxExecutions: 50})
	if !res.DepthLimited {
		t.Errorf("stateless search of a spin loop was not cut by the depth bound")
	}
	res = exploreStateful(t, startStateful(t, exe), search.Options{MaxDepth: 1000, Visited: true})
	t.Logf("with --visited: %+v", res.Stats)
	if len(res.Bugs) > 0 || !res.Complete || res.DepthLimited {
		t.Errorf("stateful search: bugs %v, complete %v, depth limited %v; want no bug, complete, not cut",
			res.Bugs, res.Complete, res.DepthLimited)
	}
	if res.Stats.Visited == 0 || res.Stats.Revisits == 0 {
		t.Errorf("no visited states or revisits counted: %+v", res.Stats)
	}
}

func TestLivelockExamples(t *testing.T) {
	for _, tc := range []struct {
		file    string
		threads string
	}{
		{"priority-inversion.c", "threads 2, 3, 4"},
		{"polite-backoff.c", "threads 2, 3"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			c := startStateful(t, livenessExample(t, tc.file))
			res := exploreStateful(t, c, search.Options{MaxDepth: 1000, Livelock: true})
			if len(res.Bugs) != 1 || res.Bugs[0].Outcome.Kind != search.Livelock {
				t.Fatalf("bugs %+v, want one livelock", res.Bugs)
			}
			bug := res.Bugs[0]
			t.Logf("%s: %s %s", bug.Outcome.Message, search.LassoString(bug.Schedule, bug.Cycle), bug.Outcome.Where)
			if len(bug.Cycle) == 0 {
				t.Fatal("the livelock has no cycle")
			}
			if !strings.Contains(bug.Outcome.Message, tc.threads) {
				t.Errorf("message %q does not name %s", bug.Outcome.Message, tc.threads)
			}
			e, err := c.Begin()
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			lr, err := search.ReplayLasso(e, bug.Schedule, bug.Cycle, 5)
			if err != nil {
				t.Fatal(err)
			}
			if lr.Result.Outcome != nil || len(lr.Returned) != 5 {
				t.Fatalf("replaying the lasso: outcome %v, %d cycles run", lr.Result.Outcome, len(lr.Returned))
			}
			for i, ok := range lr.Returned {
				if !ok {
					t.Errorf("run %d of the cycle did not come back to its first state", i+1)
				}
			}
		})
	}
	t.Run("spin-handoff.c", func(t *testing.T) {
		// A spin-wait that a fair scheduler ends is no livelock.
		res := exploreStateful(t, startStateful(t, livenessExample(t, "spin-handoff.c")), search.Options{MaxDepth: 1000, Livelock: true})
		if len(res.Bugs) > 0 {
			t.Errorf("found %v in a correct handoff: %s", res.Bugs[0].Outcome.Kind, res.Bugs[0].Outcome.Message)
		}
	})
}

func TestLTLExamples(t *testing.T) {
	for _, tc := range []struct {
		file, formula string
		holds         bool
	}{
		{"peterson.c", "G(want0 -> F enter0)", true},
		{"peterson.c", "G(want1 -> F enter1)", true},
		{"peterson.c", "G !enter0", false},
		{"cond-queue.c", "G(pending -> F !pending)", true},
		{"priority-inversion.c", "G(r -> F cs)", false},
	} {
		t.Run(tc.file+" "+tc.formula, func(t *testing.T) {
			f, err := ltl.Parse(tc.formula)
			if err != nil {
				t.Fatal(err)
			}
			res := exploreStateful(t, startStateful(t, livenessExample(t, tc.file)), search.Options{MaxDepth: 1000, Graph: true})
			if len(res.Bugs) > 0 {
				t.Fatalf("found %v: %s", res.Bugs[0].Outcome.Kind, res.Bugs[0].Outcome.Message)
			}
			v, err := ltl.Check(res.Graph, f)
			if err != nil {
				t.Fatal(err)
			}
			if (v == nil) != tc.holds {
				t.Fatalf("holds = %v, want %v (violation %+v)", v == nil, tc.holds, v)
			}
			if v != nil {
				t.Logf("%s: %s", v.Outcome().Message, search.LassoString(v.Lasso.Stem, v.Lasso.Cycle))
				if len(v.Props) == 0 || len(v.Names) == 0 {
					t.Errorf("the violation shows no proposition values")
				}
			}
		})
	}
}
