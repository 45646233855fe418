package ctarget_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/ltl"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// startOnly hides an executor's StartPrefix: every execution replays its
// prefix one step per hand-over, no batch.
type startOnly struct{ c *executor.Executor }

func (s startOnly) Start() (search.Execution, error) { return s.c.Start() }

// statefulGraph explores exe's state graph with the depth-first search
// of an ltl check, with spurious wakeups as grade's. plain: every
// execution in a child reset in place (whose states are a fresh child's:
// TestReusedChildStates), its threads created for real, its prefix
// replayed one step at a time; otherwise as a search runs it now: the
// program's threads kept parked between executions (the pool, run as
// contexts), the prefix in batches. It fails the test unless the plain
// search used neither and the other used both.
func statefulGraph(t *testing.T, exe string, plain bool) *search.Graph {
	t.Helper()
	p, err := ctarget.Start(targetproc.Config{Binary: exe, Flags: wire.FlagFastExit | wire.FlagState,
		KeepThreads: !plain})
	if err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	defer p.Close()
	c := executor.New(p, executor.Options{FastExit: true, SpuriousWakeups: true})
	var ex search.Executor = c
	if plain {
		ex = startOnly{c}
	}
	res, err := search.Explore(context.Background(), ex, search.NewDFS(),
		search.Options{Graph: true, MaxDepth: 400, MaxExecutions: 20000})
	if err != nil {
		t.Fatalf("exploring (plain %v): %v", plain, err)
	}
	if !res.Complete || res.DepthLimited {
		t.Fatalf("plain %v: the search did not complete (depth limited %v) in %d executions", plain, res.DepthLimited, res.Stats.Executions)
	}
	switch {
	case plain && (p.Batched() != 0 || p.Pooled() != 0):
		t.Fatalf("plain search: %d steps batched, %d threads pooled", p.Batched(), p.Pooled())
	case !plain && (p.Reused() == 0 || p.Batched() == 0 || p.Pooled() == 0):
		t.Fatalf("search: %d executions reused a child, %d steps batched, %d threads pooled; want each", p.Reused(), p.Batched(), p.Pooled())
	}
	t.Logf("plain %v: %d executions, %d transitions, %d states, %d reused, %d batched, pool %d",
		plain, res.Stats.Executions, res.Stats.Transitions, len(res.Graph.Nodes), p.Reused(), p.Batched(), p.Pooled())
	return res.Graph
}

// graphDiff describes the first difference between two state graphs
// explored in the same order, node by node ("" if none). The hashes are
// not compared: a pooled thread's frames lie elsewhere on its stack than a
// thread created for real, so the same state hashes differently in the two
// kinds of child (within one search, every child is of one kind).
func graphDiff(a, b *search.Graph) string {
	if !slices.Equal(a.Names, b.Names) {
		return fmt.Sprintf("propositions %v and %v", a.Names, b.Names)
	}
	if len(a.Nodes) != len(b.Nodes) {
		return fmt.Sprintf("%d states and %d", len(a.Nodes), len(b.Nodes))
	}
	for i := range a.Nodes {
		x, y := &a.Nodes[i], &b.Nodes[i]
		switch {
		case x.Depth != y.Depth || x.Cut != y.Cut || !slices.Equal(x.Enabled, y.Enabled) || !slices.Equal(x.Props, y.Props):
			return fmt.Sprintf("state %d: depth %d/%d, cut %v/%v, enabled %v/%v, props %v/%v",
				i, x.Depth, y.Depth, x.Cut, y.Cut, x.Enabled, y.Enabled, x.Props, y.Props)
		case (x.End == nil) != (y.End == nil) || x.End != nil && x.End.Key() != y.End.Key():
			return fmt.Sprintf("state %d: end %v and %v", i, x.End, y.End)
		case !slices.Equal(x.Edges, y.Edges):
			return fmt.Sprintf("state %d: transitions %v and %v", i, x.Edges, y.Edges)
		}
	}
	return ""
}

// TestStatefulSearchSameGraph: the ways a stateful search saves work
// (threads kept parked between executions and run as contexts, prefixes
// replayed in batches) must leave its state graph as a search with
// neither builds it, state for state and transition for transition, and
// so every verdict on it: a state taken for two, or two for one, would
// change a livelock's or an LTL property's answer. Over the liveness
// examples (Peterson's lock among them) and the harnesses of the C
// exercises' stateful checks (C4's starvation, C5's livelock) with their
// solutions and the wrong answers those checks fail, whose bug must still
// be found.
func TestStatefulSearchSameGraph(t *testing.T) {
	if testing.Short() {
		t.Skip("explores every program's state graph twice")
	}
	useExampleCache(t)
	type program struct {
		name, exe string
		check     bool   // the verdict of an exercise's check is compared
		formula   string // that check's formula; "" for a progress check
		fails     bool   // it fails (under strong fairness, as grade's)
	}
	var progs []program
	live, err := filepath.Glob(filepath.Join(examplesDir, "liveness", "*.c"))
	if err != nil || len(live) == 0 {
		t.Fatalf("no liveness example (%v)", err)
	}
	var files []string
	for _, f := range live {
		files = append(files, filepath.Join("liveness", filepath.Base(f)))
	}
	exes := buildExampleFiles(t, files)
	for _, f := range files {
		progs = append(progs, program{name: filepath.Base(f), exe: exes[f]})
	}
	for _, sub := range []struct {
		exercise, harness, dir, formula string
		fails                           bool
	}{
		{"readers-writers", "test_starvation.c", "solution", "G(want -> F wrote)", false},
		{"readers-writers", "test_starvation.c", "wrong/readers-first", "G(want -> F wrote)", true},
		{"dining-philosophers", "test_livelock.c", "solution", "", false},
		{"dining-philosophers", "test_livelock.c", "wrong/trylock-backoff", "", true},
	} {
		ex := filepath.Join("../../exercises/c", sub.exercise)
		dir := t.TempDir()
		sources, _ := filepath.Glob(filepath.Join(ex, sub.dir, "*.c"))
		for _, f := range append(sources, filepath.Join(ex, sub.harness)) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		exe, err := ctarget.Build(filepath.Join(dir, sub.harness))
		if err != nil {
			t.Fatalf("building %s's %s with %s: %v", sub.exercise, sub.harness, sub.dir, err)
		}
		progs = append(progs, program{name: sub.exercise + "/" + sub.dir, exe: exe, check: true, formula: sub.formula, fails: sub.fails})
	}
	for _, prog := range progs {
		t.Run(prog.name, func(t *testing.T) {
			plain := statefulGraph(t, prog.exe, true)
			fast := statefulGraph(t, prog.exe, false)
			if d := graphDiff(plain, fast); d != "" {
				t.Fatalf("the state graphs differ: %s", d)
			}
			if !prog.check {
				return
			}
			for _, g := range []*search.Graph{plain, fast} {
				found := false
				if prog.formula == "" {
					found = search.FindLivelockFair(g, search.StrongFairness) != nil
				} else {
					f, err := ltl.Parse(prog.formula)
					if err != nil {
						t.Fatal(err)
					}
					v, err := ltl.CheckFair(g, f, search.StrongFairness)
					if err != nil {
						t.Fatal(err)
					}
					found = v != nil
				}
				if found != prog.fails {
					t.Errorf("violation found %v, want %v", found, prog.fails)
				}
			}
		})
	}
}
