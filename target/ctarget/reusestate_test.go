package ctarget_test

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
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// stateRecorder is an executor that records the state at every scheduling
// point of every execution it starts, by the schedule that led there.
type stateRecorder struct {
	c *executor.Executor
	p *targetproc.Process
	// states are the states met at each point, keyed by the schedule
	// that led there: more than one when the program's memory is not the
	// same in two executions of that schedule (it read the clock).
	states map[string][]uint64
	// fresh kills each execution's child as it ends, so that the next
	// one starts in a freshly forked child instead of the same one reset.
	fresh bool
	// missing counts the points without a state report.
	missing int
}

func (r *stateRecorder) Start() (search.Execution, error) {
	e, err := r.c.Begin()
	if err != nil {
		return nil, err
	}
	x := &recordedExecution{Execution: e, r: r}
	x.note()
	return x, nil
}

// recordedExecution records the state before each step and after the
// last.
type recordedExecution struct {
	*executor.Execution
	r     *stateRecorder
	steps schedule.Schedule
}

func (x *recordedExecution) note() {
	if x.Ended() != nil {
		return
	}
	st, ok := x.State()
	if !ok {
		x.r.missing++
		return
	}
	at := x.steps.String()
	if !slices.Contains(x.r.states[at], st.Hash) {
		x.r.states[at] = append(x.r.states[at], st.Hash)
	}
}

func (x *recordedExecution) Close() error {
	err := x.Execution.Close()
	if x.r.fresh {
		// A change of the pool drops the child, parked for a reset or
		// not (the pool itself is put back: these searches have none).
		n := x.r.p.Pooled()
		x.r.p.SetPool(n + 1)
		x.r.p.SetPool(n)
	}
	return err
}

func (x *recordedExecution) Step(s schedule.Step) error {
	if err := x.Execution.Step(s); err != nil {
		return err
	}
	x.steps = append(x.steps, s)
	x.note()
	return nil
}

// reuseStateProgram is a program whose states are compared between a
// fresh child and a reused one.
type reuseStateProgram struct {
	name string
	exe  string
}

// reuseStatePrograms builds the bundled C examples (bugs, correct
// programs and the liveness examples) and the C exercises' harnesses with
// their reference solutions.
func reuseStatePrograms(t *testing.T) []reuseStateProgram {
	t.Helper()
	useExampleCache(t)
	var files []string
	for _, ex := range exampleTable {
		files = append(files, ex.file)
	}
	live, err := filepath.Glob(filepath.Join(examplesDir, "liveness", "*.c"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range live {
		files = append(files, filepath.Join("liveness", filepath.Base(f)))
	}
	exes := buildExampleFiles(t, files)
	var out []reuseStateProgram
	for _, f := range files {
		out = append(out, reuseStateProgram{f, exes[f]})
	}
	exercises, err := filepath.Glob("../../exercises/c/*/solution")
	if err != nil {
		t.Fatal(err)
	}
	if len(exercises) == 0 {
		t.Fatal("no C exercise with a solution under ../../exercises/c")
	}
	for _, sol := range exercises {
		ex := filepath.Dir(sol)
		dir := t.TempDir()
		for _, pattern := range []string{filepath.Join(ex, "*.[ch]"), filepath.Join(sol, "*")} {
			fs, _ := filepath.Glob(pattern)
			for _, f := range fs {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		harnesses, _ := filepath.Glob(filepath.Join(ex, "test_*.c"))
		for _, h := range harnesses {
			exe, err := ctarget.Build(filepath.Join(dir, filepath.Base(h)))
			if err != nil {
				t.Fatalf("building %s with %s's solution: %v", filepath.Base(h), filepath.Base(ex), err)
			}
			out = append(out, reuseStateProgram{filepath.Base(ex) + "/" + filepath.Base(h), exe})
		}
	}
	return out
}

// reuseStateDepth and reuseStatePreemptions bound the schedules compared:
// every schedule of at most that many steps with at most that many
// preemptions. reuseStateExecutions only stops a runaway search.
const (
	reuseStateDepth       = 14
	reuseStatePreemptions = 1
	reuseStateExecutions  = 3000
)

// recordStates explores the program's schedules within the bounds, in
// freshly forked children (fresh) or in children reset in place after
// each execution, and returns the state at every point met and how many
// executions started in a reset child.
func recordStates(t *testing.T, p *targetproc.Process, fresh bool) (map[string][]uint64, int64) {
	t.Helper()
	r := &stateRecorder{c: executor.New(p, executor.Options{FastExit: true}), p: p, fresh: fresh, states: make(map[string][]uint64)}
	before := p.Reused()
	res, err := search.Explore(context.Background(), r, search.NewPreemptionBounding(reuseStatePreemptions),
		search.Options{MaxDepth: reuseStateDepth, MaxExecutions: reuseStateExecutions, All: true})
	if err != nil {
		t.Fatalf("exploring (fresh %v): %v", fresh, err)
	}
	if !res.Complete {
		t.Fatalf("fresh %v: the search did not finish within %d executions", fresh, reuseStateExecutions)
	}
	if r.missing > 0 {
		t.Fatalf("fresh %v: %d scheduling points without a state report", fresh, r.missing)
	}
	return r.states, p.Reused() - before
}

// TestReusedChildStates: a child reset in place for the next execution
// (wire.FlagReuse) must report, at every scheduling point, the state a
// freshly forked child reports at the same point: a stateful search that
// reuses children would otherwise take one state for two (a revisit
// missed, a cycle of an LTL check that never closes) or two for one. Over
// the bundled C examples and the C exercises' harnesses with their
// solutions, every schedule within a small bound. Points where fresh
// children themselves disagree (a program that reads the clock keeps the
// time in its memory, one that forks a process id) are left out: the
// fresh children explore every schedule twice.
func TestReusedChildStates(t *testing.T) {
	if testing.Short() {
		t.Skip("explores every example twice")
	}
	var never []string
	for _, prog := range reuseStatePrograms(t) {
		t.Run(strings.TrimSuffix(prog.name, filepath.Ext(prog.name)), func(t *testing.T) {
			// One fork server for both: the program's addresses (heap,
			// stack, libraries) are the same in all its children.
			p, err := ctarget.Start(targetproc.Config{Binary: prog.exe, Flags: wire.FlagFastExit | wire.FlagState})
			if err != nil {
				t.Fatalf("starting %s: %v", prog.exe, err)
			}
			defer p.Close()
			fresh, n := recordStates(t, p, true)
			again, m := recordStates(t, p, true)
			if n+m != 0 {
				t.Fatalf("%d executions ran in a reset child where each was to start in a fresh one", n+m)
			}
			reused, n := recordStates(t, p, false)
			if n == 0 {
				// The program does what a reset cannot undo (it forks,
				// it misuses a lock and dies), or runs once.
				never = append(never, prog.name)
			}
			if len(fresh) != len(reused) {
				t.Errorf("%d scheduling points in fresh children, %d in reused ones", len(fresh), len(reused))
			}
			var diff []string
			varying := 0
			for at, hs := range fresh {
				if len(hs) > 1 || !slices.Equal(hs, again[at]) {
					varying++
					continue
				}
				if g := reused[at]; len(g) > 0 && !slices.Equal(g, hs) {
					diff = append(diff, at)
				}
			}
			slices.SortFunc(diff, func(a, b string) int { return len(a) - len(b) })
			if len(diff) > 0 {
				t.Errorf("%d of %d scheduling points have another state in a reset child than in a fresh one; the first: %s",
					len(diff), len(fresh), describeAt(diff[0], fresh, reused))
			}
			t.Logf("%d scheduling points (%d not the same in two fresh children), %d executions in reset children",
				len(fresh), varying, n)
		})
	}
	// The examples of bugs may end every execution in a way a reset
	// cannot follow; the liveness examples and the exercises, the
	// programs stateful searches are for, must be reset.
	for _, name := range never {
		if strings.Contains(name, "/") {
			t.Errorf("%s: no execution ran in a reset child", name)
		}
	}
}

func describeAt(at string, fresh, reused map[string][]uint64) string {
	where := "after " + at
	if at == "" {
		where = "the initial point"
	}
	return fmt.Sprintf("%s: %x fresh, %x reset", where, fresh[at], reused[at])
}
