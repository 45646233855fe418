package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// philosophers: thread 1 creates n philosophers; philosopher i starts,
// takes fork i, then fork i+1 (mod n), and puts both down. Every
// philosopher holding its left fork is a deadlock: its shortest schedules
// create them all, then run each philosopher's start and first lock, 3n
// steps; in the order n-1, n-2, ..., 0 only the first switch between
// philosophers leaves one that could go on (the others wait for the fork
// the one before took), so the fewest preemptions is 1.
func philosophers(n int) *fakeExecutor {
	main := make([]fop, n)
	scripts := [][]fop{main}
	for i := range n {
		main[i] = create(i + 1)
		l, r := uint64(i+1), uint64((i+1)%n+1)
		scripts = append(scripts, []fop{start(nil), lock(l), lock(r), unlock(r), unlock(l)})
	}
	return newFake(1, scripts...)
}

// hidden: thread 1 creates threads 2 and 3; thread 2's start sets a
// variable (as C code does between two thread operations, where the model
// does not see it) and thread 3 fails if it finds it set. The model calls
// the two independent, so schedules it calls equivalent end differently:
// the proof by reduction cannot be used, and the branch and bound over
// every schedule proves the shortest, 1;1;2;3;3 (no preemption: each
// thread that is left has finished).
func hidden() *fakeExecutor {
	look := fop{kind: syncmodel.Read, obj: 5, check: func(v *fakeVars) string {
		if v[1] == 1 {
			return "seen"
		}
		return ""
	}}
	return newFake(1,
		[]fop{create(1), create(2)},
		[]fop{start(func(v *fakeVars) { v[1] = 1 })},
		[]fop{start(nil), look},
	)
}

// TestMinimiseProof checks minimisations that the proof by reduction
// settles: the result, that it is proven, and that the proof costs at most
// a few times the executions of the search that found the bug.
func TestMinimiseProof(t *testing.T) {
	tests := []struct {
		name     string
		ex       func() *fakeExecutor
		length   int
		pre      int
		maxRatio float64 // executions of the minimisation / of the search
	}{
		{"philosophers 3", func() *fakeExecutor { return philosophers(3) }, 9, 1, 4},
		{"philosophers 4", func() *fakeExecutor { return philosophers(4) }, 12, 1, 4},
		{"philosophers 5", func() *fakeExecutor { return philosophers(5) }, 15, 1, 4},
		{"philosophers 6", func() *fakeExecutor { return philosophers(6) }, 18, 1, 4},
		{"embrace twice", embraceTwice, 3, 1, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := tt.ex()
			res, err := Explore(context.Background(), ex, NewDPOR(), Options{})
			if err != nil || len(res.Bugs) != 1 {
				t.Fatalf("search: %v, %v", res.Bugs, err)
			}
			bug := res.Bugs[0]
			m, err := Minimise(context.Background(), ex, bug, MinimiseOptions{Exhaustive: true, SearchExecutions: res.Stats.Executions})
			if err != nil {
				t.Fatal(err)
			}
			ratio := float64(m.Stats.Executions) / float64(res.Stats.Executions)
			t.Logf("found in %d executions (%d steps, %d preemptions); minimised to %v (%d, %d), proven %v, in %d executions (%.1f times)",
				res.Stats.Executions, m.OriginalLength, m.OriginalPreemptions, m.Schedule, m.Length, m.Preemptions, m.Proven,
				m.Stats.Executions, ratio)
			if !m.Proven || m.Length != tt.length || m.Preemptions != tt.pre || m.Unproven != "" ||
				m.LowerLength != tt.length || m.LowerPreemptions != tt.pre {
				t.Errorf("%+v; want proven, %d steps, %d preemptions", m, tt.length, tt.pre)
			}
			if pre := checkReplay(t, ex, m.Schedule, bug.Outcome.Key()); pre != m.Preemptions {
				t.Errorf("%v has %d preemptions, Minimise says %d", m.Schedule, pre, m.Preemptions)
			}
			if ratio > tt.maxRatio {
				t.Errorf("%d executions to minimise, %.1f times the search's %d", m.Stats.Executions, ratio, res.Stats.Executions)
			}
		})
	}
}

// TestMinimiseHidden checks a program whose threads communicate behind
// the model's back: the proof by reduction detects it and the branch and
// bound proves the result instead.
func TestMinimiseHidden(t *testing.T) {
	ex := hidden()
	res, err := Explore(context.Background(), ex, NewDFS(), Options{All: true})
	if err != nil || len(res.Bugs) != 1 {
		t.Fatalf("search: %v, %v", res.Bugs, err)
	}
	bug := res.Bugs[0]
	m, err := Minimise(context.Background(), ex, bug, MinimiseOptions{Exhaustive: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v -> %v (%d, %d), proven %v, %d executions", m.Original, m.Schedule, m.Length, m.Preemptions, m.Proven, m.Stats.Executions)
	if want := "1;1;2;3;3"; m.Schedule.String() != want || !m.Proven || m.Preemptions != 0 {
		t.Errorf("%v, proven %v; want %s, proven", m.Schedule, m.Proven, want)
	}
	checkReplay(t, ex, m.Schedule, bug.Outcome.Key())
}

// TestMinimiseLowerBound checks what a minimisation stopped by its budget
// says it proved.
func TestMinimiseLowerBound(t *testing.T) {
	for _, budget := range []int64{3, 10, 20, 40, 80, 200} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			ex := philosophers(4)
			res, err := Explore(context.Background(), ex, NewDPOR(), Options{})
			if err != nil || len(res.Bugs) != 1 {
				t.Fatalf("search: %v, %v", res.Bugs, err)
			}
			bug := res.Bugs[0]
			m, err := Minimise(context.Background(), ex, bug, MinimiseOptions{Exhaustive: true, MaxExecutions: budget})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("budget %d: %v (%d, %d), proven %v, at least (%d, %d), %s", budget, m.Schedule, m.Length, m.Preemptions,
				m.Proven, m.LowerLength, m.LowerPreemptions, m.Unproven)
			less := m.LowerLength < m.Length || m.LowerLength == m.Length && m.LowerPreemptions <= m.Preemptions
			if !less || m.LowerLength > 12 || m.LowerLength == 12 && m.LowerPreemptions > 1 {
				t.Errorf("lower bound (%d, %d) for (%d, %d): not a bound of the minimum (12, 1)",
					m.LowerLength, m.LowerPreemptions, m.Length, m.Preemptions)
			}
			if m.Proven != (m.Unproven == "") || m.Proven && (m.LowerLength != m.Length || m.LowerPreemptions != m.Preemptions) {
				t.Errorf("proven %v, unproven %q, bound (%d, %d) for (%d, %d)", m.Proven, m.Unproven, m.LowerLength,
					m.LowerPreemptions, m.Length, m.Preemptions)
			}
			if m.Stats.Executions > budget {
				t.Errorf("%d executions, budget %d", m.Stats.Executions, budget)
			}
		})
	}
}

// TestLinear checks the search for the fewest preemptions among the
// schedules of one trace: the philosophers' deadlock, whose trace is
// known, learned from runs of it.
func TestLinear(t *testing.T) {
	ex := philosophers(4)
	// Thread 1 creates all, then each philosopher starts and takes its
	// left fork, in order: 3 preemptions.
	sc := schedule.Threads(1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5)
	bug := bugOf(t, ex, sc)
	s := &shrinker{ctx: context.Background(), ex: ex, key: bug.Outcome.Key(), left: 100}
	orig, err := s.execute(sc, len(sc), false)
	if err != nil || orig.pre != 3 {
		t.Fatalf("%+v, %v", orig, err)
	}
	var tr []Event
	e, _ := ex.Start()
	for _, st := range sc {
		for _, th := range e.Threads() {
			if th.ID == st.Thread {
				tr = append(tr, Event{Step: st, Op: th.Op})
			}
		}
		if err := e.Step(st); err != nil {
			t.Fatal(err)
		}
	}
	e.Close()
	l := newLinear(tr, nil, s.key, Deadlock)
	if !l.solve() || l.cost != 0 || l.exact {
		t.Fatalf("before any run: cost %d, exact %v: want 0, not exact (nothing is known)", l.cost, l.exact)
	}
	best, pre, err := s.fewestPreemptions([]*linear{l}, len(sc))
	if err != nil || pre != 1 || best == nil || best.pre != 1 || len(best.sched) != len(sc) {
		t.Fatalf("best %+v, lower bound %d, %v; want 1 preemption", best, pre, err)
	}
	t.Logf("%v: %d preemptions, %d runs", best.sched, best.pre, s.stats.Executions-1)
	if got := checkReplay(t, ex, best.sched, s.key); got != 1 {
		t.Errorf("%v has %d preemptions", best.sched, got)
	}
}

// TestMinimiseRandomOracle checks the proof against brute force on the
// random programs of TestDPORRandomPrograms: for every bug, the minimisation from a failing
// schedule is proven and is as small as the smallest failing schedule of
// that bug among all the schedules of the program.
func TestMinimiseRandomOracle(t *testing.T) {
	type size struct{ len, pre int }
	n := 400
	if testing.Short() {
		n = 100
	}
	programs, minimisations := 0, 0
	for seed := range n {
		ex := randomProgram(rand.New(rand.NewPCG(uint64(seed), 36)))
		rec := &bugRecorder{Strategy: NewDFS()}
		res, err := Explore(context.Background(), ex, rec, Options{All: true, MaxExecutions: 20000})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Complete || len(rec.bugs) == 0 {
			continue
		}
		programs++
		best := map[string]size{}
		var keys []string
		for _, b := range rec.bugs {
			key := b.Outcome.Key()
			sz := size{len(b.Schedule), checkReplay(t, ex, b.Schedule, key)}
			old, ok := best[key]
			if !ok {
				keys = append(keys, key)
			}
			if !ok || sz.len < old.len || sz.len == old.len && sz.pre < old.pre {
				best[key] = sz
			}
		}
		for _, key := range keys {
			// From the last failing schedule of the bug, usually far
			// from the smallest.
			var from Bug
			for _, b := range rec.bugs {
				if b.Outcome.Key() == key {
					from = b
				}
			}
			m, err := Minimise(context.Background(), ex, from, MinimiseOptions{Exhaustive: true})
			if err != nil {
				t.Fatal(err)
			}
			minimisations++
			if got := (size{m.Length, m.Preemptions}); got != best[key] || !m.Proven {
				t.Errorf("seed %d, %s from %v: %v %+v proven %v (%s), want %+v", seed, key, from.Schedule, m.Schedule,
					got, m.Proven, m.Unproven, best[key])
			}
		}
	}
	t.Logf("%d programs with bugs, %d minimisations", programs, minimisations)
	if programs < n/20 {
		t.Errorf("only %d generated programs have bugs", programs)
	}
}

// TestLinearTooBig checks a trace too big to search: its schedule as it
// ran is the best there is, and nothing is proven about its preemptions.
func TestLinearTooBig(t *testing.T) {
	ex := philosophers(3)
	sc := schedule.Threads(1, 1, 1, 2, 2, 3, 3, 4, 4)
	bug := bugOf(t, ex, sc)
	s := &shrinker{ctx: context.Background(), ex: ex, key: bug.Outcome.Key(), left: 100}
	var tr []Event
	e, _ := ex.Start()
	for _, st := range sc {
		for _, th := range e.Threads() {
			if th.ID == st.Thread {
				tr = append(tr, Event{Step: st, Op: th.Op})
			}
		}
		e.Step(st)
	}
	e.Close()
	l := newLinear(tr, nil, s.key, Deadlock)
	l.states = 0 // as if it had too many
	best, pre, err := s.fewestPreemptions([]*linear{l}, len(sc))
	if err != nil || best == nil || !best.sched.Equal(sc) || best.pre != 2 || pre != 0 {
		t.Fatalf("best %+v, lower bound %d, %v; want the trace as it ran (2 preemptions), bound 0", best, pre, err)
	}
}
