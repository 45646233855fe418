package ctarget_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// exploreSpin explores an example of examples/c/spin as stdbg find builds
// and runs a source by default (the memory instrumentation, plain
// accesses logged), with DPOR within depth.
func exploreSpin(t *testing.T, file string, depth int, executions int64) *search.Result {
	t.Helper()
	path := "spin/" + file
	if rest, ok := strings.CutPrefix(file, "../"); ok {
		path = "./" + rest // an example of examples/c itself
	}
	exe := buildMemory(t, path)
	p, err := ctarget.Start(targetproc.Config{Binary: exe, Flags: wire.FlagFastExit,
		Env: append(os.Environ(), ctarget.MemoryLogEnv)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	c := executor.New(p, executor.Options{FastExit: true, Races: true})
	res, err := search.Explore(context.Background(), c, search.NewDPOR(),
		search.Options{MaxDepth: depth, MaxExecutions: executions})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSpinExamples: loops whose iterations change nothing wait for a write
// to what they read (docs/spin.md), so that DPOR exhausts the correct
// programs within a bound of executions far below what their spins
// unrolled need (without the rule each ran to the depth bound, and the
// test-and-set lock took more than 10,000 executions without ending); the
// bounded retries keep their bugs, whether their count lives on the stack
// (retry-gives-up.c), in thread-local storage or on the heap; a loop that
// reads what the checker does not see (a pipe, a flag on a stack written
// by another thread) is never taken for one that changed nothing; and a
// spin nothing can end is a livelock that says who spins, where, waiting
// for a write to what.
func TestSpinExamples(t *testing.T) {
	useExampleCache(t)
	tests := []struct {
		file       string
		depth      int
		executions int64 // at most
		want       search.Kind
		message    string
		// depthOK: the example's loop is one the checker cannot prove
		// changes nothing: it may run to the depth bound, but ends
		// without a report.
		depthOK bool
	}{
		{"tas-lock.c", 1000, 2000, exampleClean, "", false},
		{"cas-lock.c", 1000, 2000, exampleClean, "", false},
		{"flag-wait.c", 1000, 200, exampleClean, "", false},
		{"trylock-wait.c", 1000, 500, exampleClean, "", false},
		{"stack-flag.c", 1000, 200, exampleClean, "", false},
		{"pipe-poll.c", 200, 100000, exampleClean, "", true},
		{"tas-lost-update.c", 1000, 100000, search.AssertionFailure, "an increment was lost", false},
		{"tls-retry.c", 1000, 100000, search.AssertionFailure, "gave up before the job was posted", false},
		{"heap-retry.c", 1000, 100000, search.AssertionFailure, "gave up before the job was posted", false},
		{"../retry-gives-up.c", 1000, 100000, search.AssertionFailure, "gave up before the job was posted", false},
		{"spin-forever.c", 1000, 100000, search.Livelock, "thread 1 spins at 0x", false},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(filepath.Base(tt.file), ".c"), func(t *testing.T) {
			res := exploreSpin(t, tt.file, tt.depth, tt.executions)
			st := res.Stats
			if tt.want == exampleClean {
				for _, b := range res.Bugs {
					t.Errorf("found %v: %s, schedule %v", b.Outcome.Kind, b.Outcome.Message, b.Schedule)
				}
				if !res.Complete {
					t.Errorf("not exhausted within %d executions", tt.executions)
				}
				if res.DepthLimited && !tt.depthOK {
					t.Errorf("%d executions cut at depth %d: the spin did not wait", st.MaxDepthHit, tt.depth)
				}
				t.Logf("%d executions, %d transitions, depth limited %v", st.Executions, st.Transitions, res.DepthLimited)
				return
			}
			if len(res.Bugs) == 0 {
				t.Fatalf("no bug in %d executions (complete %v, depth limited %v); want %v",
					st.Executions, res.Complete, res.DepthLimited, tt.want)
			}
			o := res.Bugs[0].Outcome
			if o.Kind != tt.want || !strings.Contains(o.Message, tt.message) {
				t.Errorf("found %v: %s; want %v with %q", o.Kind, o.Message, tt.want, tt.message)
			}
			t.Logf("%v after %d executions: %s", o.Kind, st.Executions, o.Message)
		})
	}
}
