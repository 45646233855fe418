package dporcheck_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/engine/search/searchtest"
	"github.com/stdbg/stdbg/internal/symbolize"
	"github.com/stdbg/stdbg/internal/testkit/testcache"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// examples holds the bundled C programs, relative to this package.
const examples = "../../../examples/c"

// TestMain keeps every build of the tests in a temporary cache: the test
// run's shared one, or one of the package's own (testcache).
func TestMain(m *testing.M) { os.Exit(testcache.Main(m)) }

// explore builds a C source, runs it with args under stdbg as find does
// (executions end fast, a child serves many executions) and explores it
// with st.
func explore(t *testing.T, path string, args []string, st search.Strategy, opts search.Options) *search.Result {
	t.Helper()
	return exploreWith(t, path, args, st, opts, false)
}

// exploreWith is explore with spurious wake-ups of condition waits or not
// (executor.Options.SpuriousWakeups, on in stdbg find).
func exploreWith(t *testing.T, path string, args []string, st search.Strategy, opts search.Options, spurious bool) *search.Result {
	t.Helper()
	exe, err := ctarget.Build(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ctarget.Start(targetproc.Config{Binary: exe, Args: args, Flags: wire.FlagFastExit, KeepThreads: true})
	if err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	defer p.Close()
	mods := make([]symbolize.Module, 0, len(p.Modules()))
	for _, m := range p.Modules() {
		mods = append(mods, symbolize.Module{Path: m.Path, Bias: m.Bias, Start: m.Start, End: m.End})
	}
	syms := symbolize.New(mods)
	defer syms.Close()
	// Bugs are told apart by file and line, as find tells them apart:
	// code addresses change from one process to the next.
	locate := func(pc uint64) string {
		f := syms.Return(pc)
		if f.File != "" && f.Line > 0 {
			return fmt.Sprintf("%s:%d", filepath.Base(f.File), f.Line)
		}
		return f.Func
	}
	c := executor.New(p, executor.Options{FastExit: true, Locate: locate, SpuriousWakeups: spurious})
	res, err := search.Explore(context.Background(), c, st, opts)
	if err != nil {
		t.Fatalf("exploring %s: %v", path, err)
	}
	return res
}

func outcomeKeys(bugs []search.Bug) []string {
	var ks []string
	for _, b := range bugs {
		ks = append(ks, b.Outcome.Key())
	}
	slices.Sort(ks)
	return ks
}

// Every bundled C example: DPOR finds exactly the bugs that running every
// schedule finds, at a small depth bound and the default one. Where running
// every schedule is too long (more than 1500 executions), DPOR must find at
// least what it found; yield-loop, an endless program, is left out.
func TestReductionFindsTheSameBugsInExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("explores every example twice")
	}
	files, _ := filepath.Glob(filepath.Join(examples, "*.c"))
	cxx, _ := filepath.Glob(filepath.Join(examples, "*.cpp"))
	files = append(files, cxx...)
	if len(files) < 20 {
		t.Fatalf("found %d examples", len(files))
	}
	for _, f := range files {
		if filepath.Base(f) == "yield-loop.c" {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			// Independent searches, each in processes of its own: two
			// at a time keep both CPUs busy.
			t.Parallel()
			// With spurious wake-ups, as stdbg find runs C programs: the
			// executions the checker cuts after a spurious wake-up
			// followed by the same wait (checker.cutRedundantWake) hide
			// nothing either.
			for _, depth := range []int{12, 1000} {
				dpor := exploreWith(t, f, nil, search.NewDPOR(), search.Options{All: true, MaxDepth: depth, MaxExecutions: 300}, true)
				dk := outcomeKeys(dpor.Bugs)
				if !dpor.Complete {
					// Too big at this bound for DPOR, and so for running
					// every schedule: nothing to compare.
					t.Logf("depth %d: dpor %d executions (complete false) %q", depth, dpor.Stats.Executions, dk)
					continue
				}
				none := exploreWith(t, f, nil, search.NewDFS(), search.Options{All: true, MaxDepth: depth, MaxExecutions: 300}, true)
				nk := outcomeKeys(none.Bugs)
				t.Logf("depth %d: none %d executions (complete %v) %q; dpor %d executions (complete %v) %q", depth,
					none.Stats.Executions, none.Complete, nk, dpor.Stats.Executions, dpor.Complete, dk)
				switch {
				case none.Complete && !slices.Equal(nk, dk):
					t.Errorf("depth %d: DPOR found %q, every schedule %q", depth, dk, nk)
				case !none.Complete:
					for _, k := range nk {
						if !slices.Contains(dk, k) {
							t.Errorf("depth %d: DPOR missed %s", depth, k)
						}
					}
				}
			}
		})
	}
}

// The deadly embrace at every small depth bound: a search cut at depth d
// finds the deadlock exactly when running every schedule to depth d does
// (the second lock of the race lies beyond the cut in the first execution).
func TestDPORDeadlyEmbraceAtSmallDepths(t *testing.T) {
	t.Parallel()
	path := filepath.Join(examples, "deadly-embrace.c")
	for depth := 1; depth <= 8; depth++ {
		none := explore(t, path, nil, search.NewDFS(), search.Options{All: true, MaxDepth: depth})
		dpor := explore(t, path, nil, search.NewDPOR(), search.Options{All: true, MaxDepth: depth})
		nk, dk := outcomeKeys(none.Bugs), outcomeKeys(dpor.Bugs)
		if !slices.Equal(nk, dk) {
			t.Errorf("max depth %d: DPOR found %q, every schedule %q", depth, dk, nk)
		}
		if depth >= 4 && !strings.Contains(strings.Join(dk, " "), "deadlock@") {
			t.Errorf("max depth %d: no deadlock found", depth)
		}
	}
}

// The DPOR programs in C, at sizes small enough to run every schedule:
// DPOR runs exactly one execution per Mazurkiewicz trace, the traces
// counted by brute force over every schedule. (indexer.c 2, one trace
// among 3,431 schedules, is left to the benchmark table: running every
// schedule took 15 s of the test run.)
func TestDPOROneExecutionPerTrace(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs every schedule of several programs")
	}
	tests := []struct {
		prog string
		args []string
	}{
		{"readers-writers.c", []string{"1"}},
		{"counter.c", []string{"2"}},
		{"prodcons.c", []string{"1", "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.prog+" "+strings.Join(tt.args, " "), func(t *testing.T) {
			path := filepath.Join(examples, "dpor", tt.prog)
			all := searchtest.NewTraceCounter(search.NewDFS())
			none := explore(t, path, tt.args, all, search.Options{All: true})
			red := searchtest.NewTraceCounter(search.NewDPOR())
			dpor := explore(t, path, tt.args, red, search.Options{All: true})
			t.Logf("every schedule: %d executions, %d traces; DPOR: %d executions (%d pruned)",
				none.Stats.Executions, len(all.Traces), dpor.Stats.Executions, dpor.Stats.Pruned)
			if len(none.Bugs)+len(dpor.Bugs) > 0 {
				t.Errorf("bugs: %v %v", none.Bugs, dpor.Bugs)
			}
			if red.Runs != len(all.Traces) || len(red.Traces) != len(all.Traces) || dpor.Stats.Pruned != 0 {
				t.Errorf("DPOR ran %d executions over %d traces (%d pruned); there are %d traces", red.Runs, len(red.Traces), dpor.Stats.Pruned, len(all.Traces))
			}
			for k := range all.Traces {
				if red.Traces[k] == 0 {
					t.Errorf("DPOR missed trace %s", k)
				}
			}
		})
	}
}

// Two pthread_once calls with different initialisers: whichever thread
// calls first runs its own. The later call, made once the control is
// done, is a scheduling point too, so that DPOR tries it first: main's
// check of what its initialiser wrote fails when thread 2 won.
func TestDPOROnceCalledAfterItsInitialiser(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "once-race.c")
	prog := `#include <pthread.h>
#include <stdbg.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int x;

static void init_main(void) { stdbg_write(&x, sizeof x); x = 1; }
static void init_worker(void) { stdbg_write(&x, sizeof x); x = 2; }

static void *worker(void *arg)
{
	(void)arg;
	pthread_once(&once, init_worker);
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	pthread_once(&once, init_main);
	stdbg_read(&x, sizeof x);
	stdbg_assert(x == 1, "main's initialiser ran");
	pthread_join(t, 0);
	return 0;
}
`
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	none := explore(t, src, nil, search.NewDFS(), search.Options{All: true})
	dpor := explore(t, src, nil, search.NewDPOR(), search.Options{All: true})
	nk, dk := outcomeKeys(none.Bugs), outcomeKeys(dpor.Bugs)
	if len(nk) != 1 || !strings.HasPrefix(nk[0], "assertion@") {
		t.Fatalf("every schedule found %q, want the assertion", nk)
	}
	if !slices.Equal(nk, dk) {
		t.Errorf("DPOR found %q (%d executions), every schedule %q", dk, dpor.Stats.Executions, nk)
	}
}
