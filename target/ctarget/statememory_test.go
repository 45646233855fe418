package ctarget_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// atomicRetry polls an atomic flag three times, yielding between polls,
// and fails if it never saw it set. Nothing sets it: the assertion fails
// whenever thread 1 finishes its loop before main returns. The only
// difference between its polls is the loop counter, on thread 1's stack.
const atomicRetry = `#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbg.h>
atomic_int flag;
static void *poll(void *arg) {
	(void)arg;
	int seen = 0;
	for (int k = 0; k < 3; k++) {
		if (atomic_load(&flag) == 1) {
			seen = 1;
			break;
		}
		sched_yield();
	}
	stdbg_assert(seen, "A1");
	return 0;
}
int main(void) {
	pthread_t t;
	pthread_create(&t, 0, poll, 0);
	return 0;
}
`

// TestFingerprintAtAtomic: in a build with the memory instrumentation,
// an atomic operation is a scheduling point entered through the
// instrumentation's entry points; the state there must still hold the
// calling thread's stack. When it did not, the polls of atomicRetry were
// one state, stateful search cut the second poll as a revisit of the
// first, and reported the program exhaustively explored without the
// assertion failure (oracle finding F16).
func TestFingerprintAtAtomic(t *testing.T) {
	useExampleCache(t)
	src := filepath.Join(t.TempDir(), "atomic-retry.c")
	if err := os.WriteFile(src, []byte(atomicRetry), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, note, err := ctarget.BuildWith(src, ctarget.BuildOptions{Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	if note != "" {
		t.Fatalf("the compiler must instrument it (gcc and clang can): %s", note)
	}
	for _, logged := range []bool{true, false} {
		name := "points"
		if logged {
			name = "logged"
		}
		t.Run(name, func(t *testing.T) {
			cfg := targetproc.Config{Binary: exe, Flags: wire.FlagFastExit | wire.FlagState}
			if logged {
				cfg.Env = append(os.Environ(), ctarget.MemoryLogEnv)
			}
			p, err := ctarget.Start(cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Close() })
			c := executor.New(p, executor.Options{FastExit: true, Races: true})
			// Main creates thread 2 (step 1), which polls (2), yields
			// (3) and polls again (4): the points before steps 2 and 4
			// differ in k only.
			polls := statesAlong(t, c, "1;2;2;2")
			if polls[1] == polls[3] {
				t.Errorf("the first and the second poll of the flag share the state %x: the loop counter is not in it", polls[1])
			}
			res, err := search.Explore(context.Background(), c, search.NewDFS(),
				search.Options{MaxDepth: 100, Visited: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Bugs) == 0 || res.Bugs[0].Outcome.Kind != search.AssertionFailure {
				t.Fatalf("stateful search: bugs %v (complete %v, %d executions, %d revisits); want the assertion failure",
					res.Bugs, res.Complete, res.Stats.Executions, res.Stats.Revisits)
			}
		})
	}
}
