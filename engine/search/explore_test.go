package search

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/model/schedule"
)

func TestDepthBound(t *testing.T) {
	// The assertion fails at the third transition.
	prog := func() *fakeExecutor { return newFake(1, []fop{yield(), yield(), fail("deep")}) }
	tests := []struct {
		maxDepth     int
		bug          bool
		depthLimited bool
	}{
		{1, false, true},
		{2, false, true},
		{3, true, false},
		{4, true, false},
		{0, true, false},
		{-1, true, false},
	}
	for _, tt := range tests {
		res, err := Explore(context.Background(), prog(), NewDFS(), Options{MaxDepth: tt.maxDepth})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(res.Bugs) == 1; got != tt.bug {
			t.Errorf("MaxDepth %d: bugs %v, want bug %v", tt.maxDepth, res.Bugs, tt.bug)
		}
		if res.DepthLimited != tt.depthLimited || (res.Stats.MaxDepthHit == 1) != tt.depthLimited {
			t.Errorf("MaxDepth %d: DepthLimited %v, MaxDepthHit %d, want %v",
				tt.maxDepth, res.DepthLimited, res.Stats.MaxDepthHit, tt.depthLimited)
		}
		if tt.depthLimited && (!res.Complete || res.Stats.Transitions != int64(tt.maxDepth) ||
			res.Stats.States != int64(tt.maxDepth)+1) {
			t.Errorf("MaxDepth %d: complete %v, %d transitions, %d states",
				tt.maxDepth, res.Complete, res.Stats.Transitions, res.Stats.States)
		}
	}

	// Two threads of three steps, bounded at four transitions: every
	// execution is cut, and the tree is cut at depth 4.
	res, err := Explore(context.Background(), yielders(2, 3), NewDFS(), Options{MaxDepth: 4})
	if err != nil {
		t.Fatal(err)
	}
	// Prefixes of length 4 of interleavings of 3+3 steps: those with i
	// steps of thread 1, i in 1..3, choose(4, i).
	want := binomial(4, 1) + binomial(4, 2) + binomial(4, 3)
	if s := res.Stats; s.Executions != want || s.MaxDepthHit != want || !res.Complete || !res.DepthLimited {
		t.Errorf("stats %+v complete %v depth-limited %v, want %d cut executions", s, res.Complete, res.DepthLimited, want)
	}
}

// twoBugs: thread 1 picks a value in 0..2 while thread 2 yields; value 1
// fails assertion "one", value 2 assertion "two". Each bug shows up in
// several executions.
func twoBugs() *fakeExecutor {
	return newFake(2,
		[]fop{choose(0, 3), yield(), check(func(v *fakeVars) string {
			return [...]string{"", "one", "two"}[v[0]]
		})},
		[]fop{yield(), yield()},
	)
}

func TestAll(t *testing.T) {
	ex := twoBugs()
	res, err := Explore(context.Background(), ex, NewDFS(), Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range res.Bugs {
		got = append(got, b.Outcome.Key()+" "+b.Schedule.String())
	}
	want := []string{"assertion@one 1:1;1;1", "assertion@two 1:2;1;1"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("bugs\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// 3 values x 10 interleavings of 3+2 steps (an execution that fails
	// stands for the one interleaving that finishes it).
	if !res.Complete || res.Stats.Executions != 30 {
		t.Errorf("complete %v after %d executions, want complete after 30", res.Complete, res.Stats.Executions)
	}

	// Deadlock and assertion in one program.
	ex = newFake(1,
		[]fop{create(1), create(2), lock(1), lock(2), unlock(2), unlock(1)},
		[]fop{lock(2), lock(1), unlock(1), unlock(2)},
		[]fop{choose(0, 2), check(func(v *fakeVars) string { return [...]string{"", "odd"}[v[0]] })},
	)
	res, err = Explore(context.Background(), ex, NewDFS(), Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[Kind]int{}
	for _, b := range res.Bugs {
		kinds[b.Outcome.Kind]++
	}
	if len(res.Bugs) != 2 || kinds[Deadlock] != 1 || kinds[AssertionFailure] != 1 {
		t.Errorf("bugs %v, want one deadlock and one assertion", res.Bugs)
	}
	if ex.open() != 0 {
		t.Errorf("%d executions left open", ex.open())
	}
}

func TestMaxExecutions(t *testing.T) {
	tests := []struct {
		limit, executions int64
		complete          bool
	}{
		{1, 1, false},
		{5, 5, false},
		{19, 19, false},
		{20, 20, true}, // the last execution exhausts the space
		{25, 20, true},
		{0, 20, true},
	}
	for _, tt := range tests {
		res, err := Explore(context.Background(), yielders(2, 3), NewDFS(), Options{MaxExecutions: tt.limit})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stats.Executions != tt.executions || res.Complete != tt.complete {
			t.Errorf("limit %d: %d executions, complete %v; want %d, %v",
				tt.limit, res.Stats.Executions, res.Complete, tt.executions, tt.complete)
		}
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ex := yielders(2, 4)
	steps := 0
	ex.onStep = func() {
		if steps++; steps == 10 {
			cancel()
		}
	}
	res, err := Explore(ctx, ex, NewDFS(), Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if res == nil || res.Complete || res.Stats.Transitions != 10 || res.Stats.Executions != 2 {
		t.Errorf("result %+v, want a partial one after 10 transitions in 2 executions", res)
	}
	if ex.open() != 0 {
		t.Errorf("%d executions left open", ex.open())
	}

	// Cancelled before the start.
	res, err = Explore(ctx, yielders(2, 2), NewDFS(), Options{})
	if !errors.Is(err, context.Canceled) || res.Stats.Executions != 0 {
		t.Errorf("pre-cancelled: %v, %d executions", err, res.Stats.Executions)
	}
}

// badStrategy chooses a thread that does not exist.
type badStrategy struct{ Strategy }

func (badStrategy) Next(Point) (schedule.Step, bool) {
	return schedule.Step{Thread: 9, Choice: -1}, true
}

// pruner abandons every execution at depth 1.
type pruner struct{ Strategy }

func (p pruner) Next(pt Point) (schedule.Step, bool) {
	if pt.Depth == 1 {
		return schedule.Step{}, false
	}
	return p.Strategy.Next(pt)
}

func TestErrors(t *testing.T) {
	nondet := func() *fakeExecutor {
		ex := newFake(2, []fop{lock(1), yield()}, []fop{yield()})
		ex.vary = func(e *fakeExecution) {
			if e.number > 1 {
				e.owner[1] = 99 // someone else holds mutex 1 this time
			}
		}
		return ex
	}
	tests := []struct {
		name string
		ex   *fakeExecutor
		st   Strategy
		opts Options
		want string
		is   error
	}{
		{"start", func() *fakeExecutor { x := yielders(2, 2); x.failStart = 3; return x }(),
			NewDFS(), Options{}, "execution 3, step 0: starting the program: fork failed", nil},
		{"step", func() *fakeExecutor { x := yielders(2, 2); x.failStep = [2]int{2, 3}; return x }(),
			NewDFS(), Options{}, "execution 2, step 3 (thread 2): target vanished", nil},
		{"stuck", func() *fakeExecutor { x := embrace(); x.stuck = true; return x }(),
			NewDFS(), Options{}, "execution 3, step 4: no thread is enabled but the execution has not ended", nil},
		{"strategy", yielders(2, 2), badStrategy{NewDFS()}, Options{},
			"execution 1, step 1: the strategy chose an impossible step 9: thread 9 does not exist", nil},
		{"nondeterminism", nondet(), NewDFS(), Options{},
			"execution 2, step 1: replaying an earlier execution: thread 1 cannot run: it is blocked in mutex-lock(0x1)", ErrNondeterministic},
		{"ended early", func() *fakeExecutor {
			ex := yielders(2, 2)
			ex.vary = func(e *fakeExecution) {
				if e.number > 1 {
					e.out = Outcome{Kind: Crash, Message: "boom"}
					e.ended = &e.out
				}
			}
			return ex
		}(), NewDFS(), Options{},
			"execution 2, step 1: replaying an earlier execution: it ended before this step (crash: boom)", ErrNondeterministic},
		{"negative limit", yielders(1, 1), NewDFS(), Options{MaxExecutions: -1}, "negative execution limit", nil},
		{"nil strategy", yielders(1, 1), nil, Options{}, "nil strategy", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Explore(context.Background(), tt.ex, tt.st, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not wrap %v", err, tt.is)
			}
			if res == nil || res.Complete {
				t.Errorf("result %+v", res)
			}
			if tt.ex.open() != 0 {
				t.Errorf("%d executions left open", tt.ex.open())
			}
		})
	}
	if _, err := Explore(context.Background(), nil, NewDFS(), Options{}); err == nil {
		t.Error("nil executor accepted")
	}
}

func TestPruned(t *testing.T) {
	res, err := Explore(context.Background(), yielders(2, 2), pruner{NewDFS()}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Two alternatives at the root, each abandoned at depth 1.
	if s := res.Stats; s.Executions != 2 || s.Pruned != 2 || s.Transitions != 2 || s.States != 3 || !res.Complete {
		t.Errorf("stats %+v complete %v", s, res.Complete)
	}
}

func TestProgress(t *testing.T) {
	var calls []Stats
	ex := yielders(2, 3)
	slow := true
	ex.onStep = func() {
		if slow {
			slow = false
			time.Sleep(progressEvery + 10*time.Millisecond) // a report is due after this execution
		}
	}
	res, err := Explore(context.Background(), ex, NewDFS(), Options{Progress: func(s Stats) { calls = append(calls, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) < 2 || calls[len(calls)-1] != res.Stats {
		t.Fatalf("progress calls %v, last must be the result's %+v", calls, res.Stats)
	}
	for i := 1; i < len(calls); i++ {
		if calls[i].Executions < calls[i-1].Executions {
			t.Errorf("progress went backwards: %+v", calls)
		}
	}
}

// TestAllocations checks that the driver and DFS allocate nothing per
// transition or per execution once warmed up: exploring all 252 executions
// of a program costs the same allocations as exploring the first 3 (which
// reach the same depth).
func TestAllocations(t *testing.T) {
	allocs := func(limit int64) float64 {
		ex := yielders(2, 5)
		return testing.AllocsPerRun(5, func() {
			if _, err := Explore(context.Background(), ex, NewDFS(), Options{MaxExecutions: limit}); err != nil {
				t.Fatal(err)
			}
		})
	}
	few, all := allocs(3), allocs(0)
	if all > few {
		t.Errorf("%v allocations for 252 executions, %v for 3", all, few)
	}
}

func BenchmarkDFS(b *testing.B) {
	// Three threads of three steps: 1680 executions of 9 transitions.
	ex := yielders(3, 3)
	var transitions int64
	b.ReportAllocs()
	for b.Loop() {
		res, err := Explore(context.Background(), ex, NewDFS(), Options{})
		if err != nil || res.Stats.Executions != 1680 {
			b.Fatal(err, res.Stats)
		}
		transitions += res.Stats.Transitions
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(transitions), "ns/transition")
}

// flaky wraps an executor whose program changes after its first execution:
// thread 2 is gone from the second execution on.
type flaky struct {
	Executor
	n int
}

func (f *flaky) Start() (Execution, error) {
	f.n++
	e, err := f.Executor.Start()
	return &flakyExec{Execution: e, hide: f.n > 1}, err
}

type flakyExec struct {
	Execution
	hide bool
}

func (e *flakyExec) Threads() []Thread {
	ts := e.Execution.Threads()
	if !e.hide {
		return ts
	}
	var out []Thread
	for _, t := range ts {
		if t.ID != 2 {
			out = append(out, t)
		}
	}
	return out
}

func TestNondeterminismAtTheBacktrackPoint(t *testing.T) {
	// DPOR panicked here: the thread it planned to run was gone.
	for name, st := range map[string]Strategy{"dfs": NewDFS(), "dpor": NewDPOR()} {
		_, err := Explore(context.Background(), &flaky{Executor: embrace()}, st, Options{MaxDepth: 30, All: true})
		if !errors.Is(err, ErrNondeterministic) {
			t.Errorf("%s: err = %v, want ErrNondeterministic", name, err)
		}
	}
}
