package search

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stdbg/stdbg/model/schedule"
)

// lateReversal: thread 1 starts thread a (id 2), thread b (id 3) and
// `noise` threads that each take mutex 1 once. Thread a takes the mutex
// twice and fails if b took it in between. DPOR, depth first, reverses
// the races at the end of its first execution first, and reaches the
// one that shows the bug (b before a's second lock, near the start) only
// after every order of b and the noise threads: (noise+1)! executions.
// One delay (or a PCT change point at the right step) shows it at once.
func lateReversal(noise int) *fakeExecutor {
	main := []fop{create(1), create(2)}
	for range noise {
		main = append(main, create(3))
	}
	a := []fop{lock(1), do(func(v *fakeVars) { v[0] = 1 }), unlock(1),
		lock(1), check(func(v *fakeVars) string {
			if v[1] == 1 {
				return "b ran between a's critical sections"
			}
			return ""
		}), unlock(1)}
	b := []fop{lock(1), do(func(v *fakeVars) {
		if v[0] == 1 {
			v[1] = 1
		}
	}), unlock(1)}
	n := []fop{lock(1), do(func(v *fakeVars) { v[2]++ }), unlock(1)}
	return newFake(1, main, a, b, n)
}

func TestPortfolioFindsWhatDPORMisses(t *testing.T) {
	const limit = 5000
	tests := []struct {
		name  string
		spec  Spec
		found bool
		by    string // the member named in the bug
	}{
		{"dpor alone", Spec{Strategy: StrategyDFS}, false, ""},
		{"portfolio", Spec{Seed: 1}, true, "PCT (depth 3, seed 1)"},
		{"portfolio, another seed", Spec{Seed: 2}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := tt.spec.New()
			if err != nil {
				t.Fatal(err)
			}
			if p, ok := st.(*Portfolio); ok {
				p.Timed(nil) // in transitions: the same executions on any machine
			}
			res, err := Explore(context.Background(), lateReversal(7), st, Options{MaxExecutions: limit})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(res.Bugs) > 0; got != tt.found {
				t.Fatalf("found %v in %d executions, want %v", got, res.Stats.Executions, tt.found)
			}
			if res.Complete {
				t.Error("complete, but DPOR did not finish")
			}
			if !tt.found {
				return
			}
			b := res.Bugs[0]
			if b.Outcome.Kind != AssertionFailure || !strings.Contains(b.Outcome.Message, "between") {
				t.Errorf("bug %v: %s", b.Outcome.Kind, b.Outcome.Message)
			}
			if b.By == "" || b.By == "DPOR" || tt.by != "" && b.By != tt.by {
				t.Errorf("found by %q, want %q (another member than DPOR)", b.By, tt.by)
			}
			t.Logf("found by %s after %d executions", b.By, res.Stats.Executions)
			// The schedule is a schedule: it replays to the same bug,
			// whoever found it.
			e, err := lateReversal(7).Start()
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			rr, err := Replay(e, b.Schedule, 0)
			if err != nil || rr.Outcome == nil || rr.Outcome.Key() != b.Outcome.Key() || rr.Leftover != 0 {
				t.Errorf("replay of %v: %+v, %v", b.Schedule, rr, err)
			}
		})
	}
}

// traceLog records the schedules a strategy runs, in order.
type traceLog struct {
	Strategy
	runs []string
}

func (l *traceLog) End(r *Report) {
	var s schedule.Schedule
	for _, e := range r.Trace {
		s = append(s, e.Step)
	}
	l.runs = append(l.runs, s.String())
	l.Strategy.End(r)
}

// A member's executions do not depend on the others': DPOR in a portfolio
// runs the same executions, in the same order, as DPOR alone, and the
// portfolio is exhaustive exactly when it finishes.
func TestPortfolioMemberRunsAsAlone(t *testing.T) {
	progs := []struct {
		name string
		ex   func() *fakeExecutor
	}{
		{"lockers", func() *fakeExecutor { return lockers(5) }},
		{"yielders", func() *fakeExecutor { return yielders(3, 2) }},
		{"late reversal", func() *fakeExecutor { return lateReversal(3) }},
	}
	for _, pg := range progs {
		t.Run(pg.name, func(t *testing.T) {
			alone := &traceLog{Strategy: NewDPOR()}
			ra, err := Explore(context.Background(), pg.ex(), alone, Options{All: true})
			if err != nil || !ra.Complete {
				t.Fatalf("DPOR alone: complete %v, %v", ra.Complete, err)
			}
			member := &traceLog{Strategy: NewDPOR()}
			p := NewPortfolio(Member{Name: "DPOR", Strategy: member, Share: 1, Decides: true},
				Member{Name: "PCT", Strategy: NewPCT(3, 9), Share: 3},
				Member{Name: "random", Strategy: NewRandom(4), Share: 1})
			p.Lead, p.Slice = 0, 7 // turns of a few executions from the start
			rp, err := Explore(context.Background(), pg.ex(), p, Options{All: true})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(member.runs, alone.runs) {
				t.Errorf("DPOR in the portfolio ran %d executions, alone %d; first differences:\n%v\n%v",
					len(member.runs), len(alone.runs), head(member.runs), head(alone.runs))
			}
			if !rp.Complete {
				t.Error("not complete, but DPOR finished")
			}
			acc := p.Account()
			if acc[0].Executions != int64(len(alone.runs)) || acc[1].Executions == 0 || acc[2].Executions == 0 {
				t.Errorf("account %+v: want DPOR's %d executions and some of the others", acc, len(alone.runs))
			}
			if rp.Stats.Executions != acc[0].Executions+acc[1].Executions+acc[2].Executions {
				t.Errorf("%d executions, account %+v", rp.Stats.Executions, acc)
			}
		})
	}
}

func head(s []string) []string { return s[:min(len(s), 5)] }

// lockers: n threads exist from the start, each taking mutex 1 once: n!
// traces.
func lockers(n int) *fakeExecutor {
	scripts := make([][]fop, n)
	for i := range scripts {
		scripts[i] = []fop{lock(1), unlock(1)}
	}
	return newFake(n, scripts...)
}

// The verdict is the deciding member's: a portfolio cut before DPOR ends is
// not exhaustive, nor is one without a deciding member, which ends when
// every member has.
func TestPortfolioVerdict(t *testing.T) {
	tests := []struct {
		name     string
		new      func() *Portfolio
		opts     Options
		complete bool
	}{
		{"DPOR finishes in its lead", func() *Portfolio { st, _ := Spec{}.New(); return st.(*Portfolio) }, Options{}, true},
		{"DPOR cut by an execution limit", func() *Portfolio {
			p := NewPortfolio(Member{Name: "DPOR", Strategy: NewDPOR(), Decides: true}, Member{Name: "PCT", Strategy: NewPCT(2, 1)})
			p.Lead, p.Slice = 0, 1
			return p
		}, Options{MaxExecutions: 20}, false},
		{"DPOR cut by the depth bound", func() *Portfolio { st, _ := Spec{}.New(); return st.(*Portfolio) }, Options{MaxDepth: 3}, true},
		{"no deciding member", func() *Portfolio {
			return NewPortfolio(Member{Name: "delays 1", Strategy: NewDelayBounding(1)}, Member{Name: "DFS", Strategy: NewDFS()})
		}, Options{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Explore(context.Background(), lockers(4), tt.new(), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Complete != tt.complete {
				t.Errorf("complete %v, want %v (%d executions)", res.Complete, tt.complete, res.Stats.Executions)
			}
		})
	}
}

// A portfolio ends when its deciding member does, even if the others could
// go on for ever; its members that run out leave the others the time.
func TestPortfolioEnds(t *testing.T) {
	db := NewDelayBounding(1)
	p := NewPortfolio(Member{Name: "DFS", Strategy: unsure{NewDFS()}, Decides: true},
		Member{Name: "delays", Strategy: db}, Member{Name: "random", Strategy: NewRandom(1)})
	p.Lead, p.Slice = 0, 5
	res, err := Explore(context.Background(), lockers(4), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	acc := p.Account()
	if !res.Complete || acc[0].Executions != 24 || !acc[0].Finished {
		t.Errorf("complete %v, account %+v: want DFS's 24 executions, finished", res.Complete, acc)
	}
	if !acc[1].Finished || !db.Exhausted() {
		t.Errorf("delay bounding not finished: %+v", acc[1])
	}
	if acc[2].Executions == 0 || acc[2].Finished {
		t.Errorf("random walk: %+v", acc[2])
	}
}

// The deciding member runs alone for its lead, then the members share the
// transitions by their shares.
func TestPortfolioShares(t *testing.T) {
	p := NewPortfolio(Member{Name: "DPOR", Strategy: NewDPOR(), Share: 2, Decides: true},
		Member{Name: "PCT", Strategy: NewPCT(3, 1), Share: 1}, Member{Name: "random", Strategy: NewRandom(1), Share: 1})
	p.Lead, p.Slice = 1000, 100
	_, err := Explore(context.Background(), lockers(8), p, Options{MaxExecutions: 200})
	if err != nil {
		t.Fatal(err)
	}
	acc := p.Account()
	// An execution of lockers(8) has 16 transitions and costs 24: the
	// lead is 42 executions; then 200 transitions (9 executions) of DPOR
	// for 100 (5) of each other.
	lead := int64((1000 + 23) / 24)
	rest := 200 - lead
	dpor := acc[0].Executions - lead
	if dpor < rest*2/4-9 || dpor > rest*2/4+9 || acc[1].Executions < rest/4-5 || acc[2].Executions < rest/4-5 {
		t.Errorf("account %+v: want about %d (lead) + %d, %d and %d executions", acc, lead, rest/2, rest/4, rest/4)
	}
}

// The decay gives the deciding member more of a long search.
func TestPortfolioDecay(t *testing.T) {
	run := func(decay int64) []MemberStats {
		p := NewPortfolio(Member{Name: "DPOR", Strategy: unsure{NewDPOR()}, Share: 1, Decides: true},
			Member{Name: "random", Strategy: NewRandom(1), Share: 1})
		p.Lead, p.Slice, p.Decay = 0, 100, decay
		if _, err := Explore(context.Background(), lockers(8), p, Options{MaxExecutions: 3000}); err != nil {
			t.Fatal(err)
		}
		return p.Account()
	}
	flat, decayed := run(0), run(2000)
	if r := float64(flat[0].Transitions) / float64(flat[1].Transitions); r < 0.9 || r > 1.1 {
		t.Errorf("without decay: %+v, want equal shares", flat)
	}
	if r := float64(decayed[0].Transitions) / float64(decayed[1].Transitions); r < 4 {
		t.Errorf("with decay: %+v, want DPOR well ahead", decayed)
	}
}

// Divided among workers, the portfolio's exhaustive member takes all but
// one and decides; the others run on the last, and find what it misses.
func TestExplorePortfolio(t *testing.T) {
	tests := []struct {
		name     string
		prog     *fakeProg
		sp       Split
		opts     Options
		complete bool
		found    bool
	}{
		{"one worker, exhaustive", lockers(5).prog, Split{Workers: 1}, Options{}, true, false},
		{"three workers, exhaustive", lockers(5).prog, Split{Workers: 3}, Options{}, true, false},
		{"three workers, the sampling side finds it", lateReversal(7).prog, Split{Workers: 3}, Options{MaxExecutions: 20000}, false, true},
		{"three workers, every bug", embrace().prog, Split{Workers: 3}, Options{All: true}, true, true},
		{"a shard is the exhaustive member's part", lockers(5).prog, Split{Workers: 2, Shard: 1, Shards: 2}, Options{}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var announced []Bug
			opts := tt.opts
			opts.OnBug = func(b Bug) { mu.Lock(); announced = append(announced, b); mu.Unlock() }
			progress := 0
			opts.Progress = func(Stats) { progress++ }
			res, err := ExplorePortfolio(context.Background(), fakeWorkers(tt.prog), Spec{Seed: 1}, opts, tt.sp)
			if err != nil {
				t.Fatal(err)
			}
			if res.Complete != tt.complete || (len(res.Bugs) > 0) != tt.found {
				t.Fatalf("complete %v, %d bugs (%d executions); want %v, %v", res.Complete, len(res.Bugs), res.Stats.Executions, tt.complete, tt.found)
			}
			if len(announced) != len(res.Bugs) {
				t.Errorf("%d bugs announced, %d found", len(announced), len(res.Bugs))
			}
			if tt.found && tt.sp.Workers == 3 && !tt.opts.All && res.Bugs[0].By == "" {
				t.Errorf("bug without its finder: %+v", res.Bugs[0])
			}
			if tt.opts.MaxExecutions > 0 && res.Stats.Executions > tt.opts.MaxExecutions+int64(tt.sp.Workers) {
				t.Errorf("%d executions past the limit of %d", res.Stats.Executions, tt.opts.MaxExecutions)
			}
		})
	}
}

// A timed portfolio charges each execution its wall time: here a clock
// that a step moves on by a microsecond, and the start of an execution by
// ten.
func TestPortfolioTimed(t *testing.T) {
	var now time.Time
	clock := func() time.Time { return now }
	ex := lockers(6)
	ex.onStep = func() { now = now.Add(time.Microsecond) }
	ex.vary = func(*fakeExecution) { now = now.Add(10 * time.Microsecond) }
	p := NewPortfolio(Member{Name: "DPOR", Strategy: unsure{NewDPOR()}, Share: 2, Decides: true},
		Member{Name: "random", Strategy: NewRandom(1), Share: 1}).Timed(clock)
	if p.Lead != int64(PortfolioLeadTime) || p.Slice != int64(PortfolioSliceTime) {
		t.Fatalf("lead %d, slice %d", p.Lead, p.Slice)
	}
	p.Lead, p.Slice = int64(2*time.Millisecond), int64(100*time.Microsecond)
	if _, err := Explore(context.Background(), ex, p, Options{MaxExecutions: 400}); err != nil {
		t.Fatal(err)
	}
	acc := p.Account()
	// An execution takes 12 steps and 10us to start: 22us. The lead is
	// 91 executions, then DPOR runs 200us (10 executions) for every 100us
	// (5) of the random walk.
	lead := int64(2000 / 22)
	want := (400 - lead) / 3
	if r := acc[1].Executions; r < want-10 || r > want+10 {
		t.Errorf("account %+v: want about %d (lead) + %d executions of DPOR and %d of the random walk", acc, lead, 2*want, want)
	}
}

// The portfolio's random walk is NewRandom's, with the same seed: the same
// schedules, in the same order; it estimates the deciding member's tree on
// the way.
func TestEstimatingWalkIsTheRandomWalk(t *testing.T) {
	plain := &traceLog{Strategy: NewRandom(1)}
	if _, err := Explore(context.Background(), lateReversal(3), plain, Options{MaxExecutions: 300, All: true}); err != nil {
		t.Fatal(err)
	}
	w := newEstimatingWalk(1, true)
	estimating := &traceLog{Strategy: w}
	if _, err := Explore(context.Background(), lateReversal(3), estimating, Options{MaxExecutions: 300, All: true}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plain.runs, estimating.runs) {
		t.Errorf("the walks differ:\n%v\n%v", head(plain.runs), head(estimating.runs))
	}
	e, ok := w.treeSize()
	if !ok || e.Probes != 300 || e.Executions < 346/1.5 || e.Executions > 346*1.5 {
		t.Errorf("estimate %+v, want about 346 executions (DPOR's)", e)
	}
}

// unsure hides a strategy's own estimate of the share of its tree it
// explored (Progressive): a deciding member that cannot tell how much is
// left, for the tests of shares.
type unsure struct{ Strategy }

// Once the walks, or the deciding member's own estimate along its path,
// show that it is about to finish, it gets most of the search: the others
// run far fewer executions than in a portfolio that cannot tell, and the
// estimate of the share explored is the deciding member's executions out
// of the walks' estimate.
func TestPortfolioNearlyDone(t *testing.T) {
	run := func(walkEstimates, ownEstimate bool) (*Portfolio, []MemberStats) {
		var walk Strategy = NewRandom(3)
		if walkEstimates {
			walk = newEstimatingWalk(3, true)
		}
		var dpor Strategy = NewDPOR()
		if !ownEstimate {
			dpor = unsure{dpor}
		}
		p := NewPortfolio(Member{Name: "DPOR", Strategy: dpor, Share: 1, Decides: true},
			Member{Name: "random", Strategy: walk, Share: 1})
		p.Lead, p.Slice, p.Decay = 0, 50, 0
		res, err := Explore(context.Background(), lockers(6), p, Options{})
		if err != nil || !res.Complete {
			t.Fatalf("complete %v, %v", res.Complete, err)
		}
		return p, p.Account()
	}
	_, blind := run(false, false)
	if blind[0].Executions != 720 {
		t.Fatalf("DPOR ran %d executions, want 720", blind[0].Executions)
	}
	for _, tc := range []struct {
		name               string
		walk, own, explore bool
	}{
		{"the walks' estimate", true, false, true},
		{"DPOR's own estimate", false, true, false},
		{"both", true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, told := run(tc.walk, tc.own)
			if told[0].Executions != 720 {
				t.Fatalf("DPOR ran %d executions, want 720", told[0].Executions)
			}
			if told[1].Executions*3 > blind[1].Executions {
				t.Errorf("the walk ran %d executions beside a DPOR about to finish, %d beside one that could not tell", told[1].Executions, blind[1].Executions)
			}
			if tc.explore && p.Explored() != 1 {
				t.Errorf("explored %v at the end", p.Explored())
			}
		})
	}
}

// A lead that ends with the deciding member about to finish goes on: a
// search just longer than the lead is the deciding member's alone.
func TestPortfolioLeadGoesOn(t *testing.T) {
	for _, tc := range []struct {
		name  string
		dpor  Strategy
		alone bool
	}{
		{"DPOR can tell", NewDPOR(), true},
		{"DPOR cannot tell", unsure{NewDPOR()}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPortfolio(Member{Name: "DPOR", Strategy: tc.dpor, Share: 1, Decides: true},
				Member{Name: "random", Strategy: NewRandom(3), Share: 1})
			// lockers(6): 720 executions of 12 transitions (20 with the
			// cost of a start); the lead is 600 of them.
			p.Lead, p.Slice, p.Decay = 600*20, 50, 0
			res, err := Explore(context.Background(), lockers(6), p, Options{})
			if err != nil || !res.Complete {
				t.Fatalf("complete %v, %v", res.Complete, err)
			}
			if acc := p.Account(); (acc[1].Executions == 0) != tc.alone {
				t.Errorf("account %+v: want the random walk to run: %v", acc, !tc.alone)
			}
		})
	}
}

// sizedWalk is a strategy whose walks estimate a fixed tree.
type sizedWalk struct {
	Strategy
	est Estimate
}

func (w sizedWalk) treeSize() (*Estimate, bool) { return &w.est, true }

// What a portfolio says it explored comes from the walks' estimate
// whenever they have one, however spread: an estimate that switched to the
// deciding member's own, along its path, when the error rose, read 3% while
// the search ran and 73% at its end.
func TestPortfolioExploredKeepsOneEstimator(t *testing.T) {
	for _, relErr := range []float64{0.2, 0.9} {
		dpor := NewDPOR()
		p := NewPortfolio(Member{Name: "DPOR", Strategy: dpor, Share: 1, Decides: true},
			Member{Name: "random", Strategy: sizedWalk{NewRandom(3), Estimate{Executions: 10000, Probes: 100, RelError: relErr}}, Share: 1})
		p.members[0].executions = 300
		if got := p.Explored(); got != 0.03 {
			t.Errorf("relative error %v: explored %v, want 300 of the 10000 the walks estimate", relErr, got)
		}
	}
}

// A deciding member that has run no execution yet (the others took every
// turn so far) has explored under one execution of the walks' estimate:
// an estimate near 0, not none, so that a verdict still says how little
// was explored.
func TestPortfolioExploredBeforeTheDecidingMemberRan(t *testing.T) {
	p := NewPortfolio(Member{Name: "DPOR", Strategy: NewDPOR(), Share: 1, Decides: true},
		Member{Name: "random", Strategy: sizedWalk{NewRandom(3), Estimate{Executions: 10000, Probes: 100, RelError: 0.2}}, Share: 1})
	got := p.Explored()
	if got <= 0 || got >= 1.0/10000 {
		t.Errorf("explored %v with DPOR at 0 executions of the 10000 the walks estimate, want an estimate in (0, 1/10000)", got)
	}
}
