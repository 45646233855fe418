package main

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/viper"

	"github.com/stdbg/stdbg/search"
	"github.com/stdbg/stdbg/search/searchtest"
)

// testApp is an app with the default settings.
func testApp() *app {
	a := &app{v: viper.New(), stdout: io.Discard, stderr: io.Discard}
	for _, s := range settings {
		a.v.SetDefault(s.key, s.def)
	}
	return a
}

// exploreExample explores a C source with a fresh strategy and returns the
// result.
func exploreExample(t *testing.T, path string, st search.Strategy, opts search.Options) *search.Result {
	t.Helper()
	return exploreArgs(t, path, nil, st, opts)
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
	files, _ := filepath.Glob(filepath.Join("..", "..", "examples", "c", "*.c"))
	cxx, _ := filepath.Glob(filepath.Join("..", "..", "examples", "c", "*.cpp"))
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
			for _, depth := range []int{12, 1000} {
				none := exploreExample(t, f, search.NewDFS(), search.Options{All: true, MaxDepth: depth, MaxExecutions: 1500})
				dpor := exploreExample(t, f, search.NewDPOR(), search.Options{All: true, MaxDepth: depth, MaxExecutions: 1500})
				nk, dk := outcomeKeys(none.Bugs), outcomeKeys(dpor.Bugs)
				t.Logf("depth %d: none %d executions (complete %v) %q; dpor %d executions (complete %v) %q", depth,
					none.Stats.Executions, none.Complete, nk, dpor.Stats.Executions, dpor.Complete, dk)
				switch {
				case !dpor.Complete:
					// Both too big at this bound.
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
	for depth := 1; depth <= 8; depth++ {
		none := exploreExample(t, example("deadly-embrace.c"), search.NewDFS(), search.Options{All: true, MaxDepth: depth})
		dpor := exploreExample(t, example("deadly-embrace.c"), search.NewDPOR(), search.Options{All: true, MaxDepth: depth})
		nk, dk := outcomeKeys(none.Bugs), outcomeKeys(dpor.Bugs)
		if !slices.Equal(nk, dk) {
			t.Errorf("max depth %d: DPOR found %q, every schedule %q", depth, dk, nk)
		}
		if depth >= 3 && !strings.Contains(strings.Join(dk, " "), "deadlock@") {
			t.Errorf("max depth %d: no deadlock found", depth)
		}
	}
}

// exploreArgs explores a C source run with arguments.
func exploreArgs(t *testing.T, path string, args []string, st search.Strategy, opts search.Options) *search.Result {
	t.Helper()
	a := testApp()
	tg, err := resolveTarget(append([]string{path}, args...), "", false)
	if err != nil {
		t.Fatal(err)
	}
	s, err := a.start(tg, io.Discard, io.Discard, true)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	res, err := search.Explore(context.Background(), s.chk, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The DPOR programs in C, at sizes small enough to run every schedule:
// DPOR runs exactly one execution per Mazurkiewicz trace, the traces
// counted by brute force over every schedule.
func TestDPOROneExecutionPerTrace(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs every schedule of several programs")
	}
	tests := []struct {
		prog string
		args []string
	}{
		{"indexer.c", []string{"2"}},
		{"readers-writers.c", []string{"1"}},
		{"counter.c", []string{"2"}},
		{"prodcons.c", []string{"1", "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.prog+" "+strings.Join(tt.args, " "), func(t *testing.T) {
			path := filepath.Join("..", "..", "examples", "c", "dpor", tt.prog)
			all := searchtest.NewTraceCounter(search.NewDFS())
			none := exploreArgs(t, path, tt.args, all, search.Options{All: true})
			red := searchtest.NewTraceCounter(search.NewDPOR())
			dpor := exploreArgs(t, path, tt.args, red, search.Options{All: true})
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
