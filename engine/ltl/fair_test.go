package ltl

import (
	"math/rand/v2"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
)

// TestCheckFairStarvation: threads 1 and 2 take a lock in turn, thread 3
// waits for it (enabled only while it is free) and would set done. Under
// weak fairness thread 3 may starve, so F done is violated; under strong
// fairness it is not, and G !done still is.
func TestCheckFairStarvation(t *testing.T) {
	step := func(th int) schedule.Step { return schedule.Step{Thread: th, Choice: schedule.NoChoice} }
	g := &search.Graph{Names: []string{"done"}, Nodes: []search.Node{
		{Enabled: []int{1, 2, 3}, Props: []bool{false}, Edges: []search.Edge{{Step: step(1), To: 1}, {Step: step(3), To: 4}}},
		{Enabled: []int{1}, Props: []bool{false}, Edges: []search.Edge{{Step: step(1), To: 2}}},
		{Enabled: []int{1, 2, 3}, Props: []bool{false}, Edges: []search.Edge{{Step: step(2), To: 3}, {Step: step(3), To: 4}}},
		{Enabled: []int{2}, Props: []bool{false}, Edges: []search.Edge{{Step: step(2), To: 0}}},
		{Props: []bool{true}, End: &search.Outcome{Kind: search.Exited}},
	}}
	f, _ := Parse("F done")
	if v, err := CheckFair(g, f, search.WeakFairness); err != nil || v == nil {
		t.Fatalf("F done, weak fairness: violation %v, error %v; want a violation", v, err)
	}
	if v, err := CheckFair(g, f, search.StrongFairness); err != nil || v != nil {
		t.Fatalf("F done, strong fairness: violation %+v, error %v; want none", v, err)
	}
	f, _ = Parse("G !done")
	v, err := CheckFair(g, f, search.StrongFairness)
	if err != nil || v == nil {
		t.Fatalf("G !done, strong fairness: no violation (error %v)", err)
	}
	checkStrongLasso(t, g, f, v)
	if o := v.Outcome(); o.Kind != search.Liveness {
		t.Errorf("outcome %+v", o)
	}
}

// TestCheckFairRandom checks CheckFair with strong fairness on random
// programs and formulas: every violation it returns is a run of the
// program, strongly fair, on which the formula is false (by the direct
// semantics); where every state enables the same threads, strong and weak
// fairness are the same and it must agree with Check; and a violation
// under strong fairness is one under weak fairness.
func TestCheckFairRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for k := range 3000 {
		g := randomGraph(r)
		uniform := k%2 == 0
		if uniform {
			for i := range g.Nodes {
				n := &g.Nodes[i]
				n.Enabled, n.Edges, n.End = nil, nil, nil
				for th := 1; th <= 2; th++ {
					n.Enabled = append(n.Enabled, th)
					n.Edges = append(n.Edges, search.Edge{Step: schedule.Step{Thread: th, Choice: schedule.NoChoice}, To: r.IntN(len(g.Nodes)), Op: "op"})
				}
			}
		}
		f := randomFormula(r, 3)
		strong, err := CheckFair(g, f, search.StrongFairness)
		if err != nil {
			t.Fatalf("case %d: %v", k, err)
		}
		weak, err := Check(g, f)
		if err != nil {
			t.Fatalf("case %d: %v", k, err)
		}
		if strong != nil {
			checkStrongLasso(t, g, f, strong)
			if weak == nil {
				t.Fatalf("case %d: %s: a strongly fair violation %v (%v)* and no weakly fair one", k, f, strong.Lasso.Stem, strong.Lasso.Cycle)
			}
		}
		if uniform && (strong == nil) != (weak == nil) {
			t.Fatalf("case %d: %s: every state enables every thread, and strong fairness says holds=%v, weak %v, on %+v", k, f, strong == nil, weak == nil, g.Nodes)
		}
	}
}

// checkStrongLasso checks that v's lasso is a run of g, that its cycle
// comes back to where it began and gives a step to every thread enabled
// in one of its states, and that f is false on it.
func checkStrongLasso(t *testing.T, g *search.Graph, f *Formula, v *Violation) {
	t.Helper()
	cur := 0
	w := word{}
	letter := func(s int) map[string]bool {
		l := map[string]bool{}
		for i, n := range g.Names {
			l[n] = g.Nodes[s].Props[i]
		}
		return l
	}
	walk := func(s schedule.Step) {
		for _, e := range g.Nodes[cur].Edges {
			if e.Step == s {
				cur = e.To
				return
			}
		}
		t.Fatalf("%s: lasso %v (%v)*: no step %v from state %d", f, v.Lasso.Stem, v.Lasso.Cycle, s, cur)
	}
	for _, s := range v.Lasso.Stem {
		w.letters = append(w.letters, letter(cur))
		walk(s)
	}
	w.loop = len(w.letters)
	if len(v.Lasso.Cycle) == 0 {
		if g.Nodes[cur].End == nil {
			t.Fatalf("%s: lasso %v ()*: the stem does not end the program", f, v.Lasso.Stem)
		}
		w.letters = append(w.letters, letter(cur))
	} else {
		start := cur
		enabled, ran := map[int]bool{}, map[int]bool{}
		for _, s := range v.Lasso.Cycle {
			w.letters = append(w.letters, letter(cur))
			for _, th := range g.Nodes[cur].Enabled {
				enabled[th] = true
			}
			walk(s)
			ran[s.Thread] = true
		}
		if cur != start {
			t.Fatalf("%s: lasso %v (%v)*: the cycle ends in state %d, not %d", f, v.Lasso.Stem, v.Lasso.Cycle, cur, start)
		}
		for th := range enabled {
			if !ran[th] {
				t.Fatalf("%s: lasso %v (%v)*: thread %d is enabled in the cycle and never runs", f, v.Lasso.Stem, v.Lasso.Cycle, th)
			}
		}
	}
	if holds(f, w)[0] {
		t.Fatalf("%s holds on the lasso %v (%v)*", f, v.Lasso.Stem, v.Lasso.Cycle)
	}
}
