package ltl

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"G(r -> F cs)", "G (r -> F cs)"},
		{"p U q U r", "(p U (q U r))"},
		{"!p && q || r -> s", "(((!p && q) || r) -> s)"},
		{"a -> b -> c", "(a -> (b -> c))"},
		{"G F p", "G F p"},
		{"X(p R q)", "X (p R q)"},
		{"true U done_1", "(true U done_1)"},
		{"F !false", "F !false"},
	} {
		f, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if got := f.String(); got != tc.want {
			t.Errorf("Parse(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{"", "G(", "p &&", "p q", "(p", "p )", "1p", "p $ q", "-> p", "U p"} {
		if f, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) = %s, want an error", bad, f)
		}
	}
}

// word is an ultimately periodic word: the letters of the stem, then the
// letters of the cycle forever; a letter gives each atom's value.
type word struct {
	letters []map[string]bool
	loop    int // the cycle starts at this position
}

func (w word) next(i int) int {
	if i+1 < len(w.letters) {
		return i + 1
	}
	return w.loop
}

// holds evaluates f at every position of w, directly from the semantics:
// U is the least fixed point of b || (a && X(a U b)), R the greatest of
// b && (a || X(a R b)).
func holds(f *Formula, w word) []bool {
	n := len(w.letters)
	out := make([]bool, n)
	switch f.Op {
	case True:
		for i := range out {
			out[i] = true
		}
	case False:
	case Atom:
		for i := range out {
			out[i] = w.letters[i][f.Name]
		}
	case Not:
		l := holds(f.L, w)
		for i := range out {
			out[i] = !l[i]
		}
	case And, Or, Implies:
		l, r := holds(f.L, w), holds(f.R, w)
		for i := range out {
			switch f.Op {
			case And:
				out[i] = l[i] && r[i]
			case Or:
				out[i] = l[i] || r[i]
			default:
				out[i] = !l[i] || r[i]
			}
		}
	case Next:
		l := holds(f.L, w)
		for i := range out {
			out[i] = l[w.next(i)]
		}
	case Finally:
		return holds(&Formula{Op: Until, L: &Formula{Op: True}, R: f.L}, w)
	case Globally:
		return holds(&Formula{Op: Release, L: &Formula{Op: False}, R: f.L}, w)
	case Until, Release:
		l, r := holds(f.L, w), holds(f.R, w)
		until := f.Op == Until
		for i := range out {
			out[i] = !until
		}
		for range 2*n + 2 {
			for i := n - 1; i >= 0; i-- {
				if until {
					out[i] = r[i] || (l[i] && out[w.next(i)])
				} else {
					out[i] = r[i] && (l[i] || out[w.next(i)])
				}
			}
		}
	}
	return out
}

// graphOf is the state graph of a program that runs through w: one thread
// always enabled, one state per position.
func graphOf(w word, atoms []string) *search.Graph {
	g := &search.Graph{Names: atoms}
	for i, l := range w.letters {
		n := search.Node{Hash: uint64(i), Depth: i, Enabled: []int{1}}
		for _, a := range atoms {
			n.Props = append(n.Props, l[a])
		}
		n.Edges = []search.Edge{{Step: schedule.Step{Thread: 1, Choice: schedule.NoChoice}, To: w.next(i), Op: "step"}}
		g.Nodes = append(g.Nodes, n)
	}
	return g
}

func randomFormula(r *rand.Rand, depth int) *Formula {
	if depth == 0 || r.IntN(4) == 0 {
		switch r.IntN(6) {
		case 0:
			return &Formula{Op: True}
		case 1:
			return &Formula{Op: False}
		case 2, 3:
			return &Formula{Op: Atom, Name: "p"}
		}
		return &Formula{Op: Atom, Name: "q"}
	}
	ops := []Op{Not, And, Or, Implies, Next, Finally, Globally, Until, Release}
	op := ops[r.IntN(len(ops))]
	f := &Formula{Op: op, L: randomFormula(r, depth-1)}
	if op == And || op == Or || op == Implies || op == Until || op == Release {
		f.R = randomFormula(r, depth-1)
	}
	return f
}

// TestCheckAgainstSemantics compares Check on one-path programs with the
// direct semantics of random formulas on random ultimately periodic words.
func TestCheckAgainstSemantics(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	atoms := []string{"p", "q"}
	for k := range 3000 {
		n := 1 + r.IntN(5)
		w := word{loop: r.IntN(n)}
		for range n {
			w.letters = append(w.letters, map[string]bool{"p": r.IntN(2) == 0, "q": r.IntN(2) == 0})
		}
		f := randomFormula(r, 3)
		want := holds(f, w)[0]
		v, err := Check(graphOf(w, atoms), f)
		if err != nil {
			t.Fatalf("case %d: %s: %v", k, f, err)
		}
		if got := v == nil; got != want {
			t.Fatalf("case %d: %s on %v (loop at %d): Check says holds=%v, semantics %v", k, f, w.letters, w.loop, got, want)
		}
		if v != nil && len(v.Lasso.Cycle) == 0 {
			t.Fatalf("case %d: %s: violation without a cycle on a program that never ends", k, f)
		}
		vs, err := CheckSCC(graphOf(w, atoms), f)
		if err != nil || (vs == nil) != want {
			t.Fatalf("case %d: %s: CheckSCC holds=%v (error %v), semantics %v", k, f, vs == nil, err, want)
		}
	}
}

// randomGraph is the state graph of a random program of up to three
// threads: each state enables some threads, each enabled thread has a
// transition to a random state; states without enabled threads have ended.
func randomGraph(r *rand.Rand) *search.Graph {
	n := 1 + r.IntN(6)
	g := &search.Graph{Names: []string{"p", "q"}}
	for i := range n {
		node := search.Node{Depth: i, Props: []bool{r.IntN(2) == 0, r.IntN(2) == 0}}
		for th := 1; th <= 3; th++ {
			if r.IntN(3) > 0 {
				node.Enabled = append(node.Enabled, th)
				node.Edges = append(node.Edges, search.Edge{Step: schedule.Step{Thread: th, Choice: schedule.NoChoice}, To: r.IntN(n), Op: "op"})
			}
		}
		if len(node.Enabled) == 0 {
			node.End = &search.Outcome{Kind: search.Exited}
		}
		g.Nodes = append(g.Nodes, node)
	}
	return g
}

// TestNestedSearchAgreesWithSCC compares the two algorithms on random
// programs with several threads, where weak fairness matters.
func TestNestedSearchAgreesWithSCC(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for k := range 3000 {
		g := randomGraph(r)
		f := randomFormula(r, 3)
		v1, err1 := Check(g, f)
		v2, err2 := CheckSCC(g, f)
		if err1 != nil || err2 != nil {
			t.Fatalf("case %d: errors %v, %v", k, err1, err2)
		}
		if (v1 == nil) != (v2 == nil) {
			t.Fatalf("case %d: %s: nested search holds=%v, SCC search holds=%v on %+v", k, f, v1 == nil, v2 == nil, g.Nodes)
		}
		if v1 != nil {
			checkLasso(t, g, v1)
		}
	}
}

// checkLasso checks that a violation's lasso is a real run of g that
// returns to where its cycle began, and is weakly fair.
func checkLasso(t *testing.T, g *search.Graph, v *Violation) {
	t.Helper()
	cur := 0
	walk := func(s schedule.Step) {
		for _, e := range g.Nodes[cur].Edges {
			if e.Step == s {
				cur = e.To
				return
			}
		}
		t.Fatalf("lasso %v (%v)*: no step %v from state %d", v.Lasso.Stem, v.Lasso.Cycle, s, cur)
	}
	for _, s := range v.Lasso.Stem {
		walk(s)
	}
	start := cur
	if len(v.Lasso.Cycle) == 0 {
		if g.Nodes[cur].End == nil {
			t.Fatalf("lasso %v ()*: the stem does not end the program", v.Lasso.Stem)
		}
		return
	}
	always := map[int]bool{}
	for _, th := range g.Nodes[cur].Enabled {
		always[th] = true
	}
	ran := map[int]bool{}
	for _, s := range v.Lasso.Cycle {
		for th := range always {
			if !slices.Contains(g.Nodes[cur].Enabled, th) {
				delete(always, th)
			}
		}
		walk(s)
		ran[s.Thread] = true
	}
	if cur != start {
		t.Fatalf("lasso %v (%v)*: the cycle ends in state %d, not %d", v.Lasso.Stem, v.Lasso.Cycle, cur, start)
	}
	for th := range always {
		if !ran[th] {
			t.Fatalf("lasso %v (%v)*: thread %d is enabled throughout the cycle and never runs", v.Lasso.Stem, v.Lasso.Cycle, th)
		}
	}
}

// TestCheckFairness: a thread that spins while another never runs violates
// F done only if the scheduler may starve the other thread, which weak
// fairness forbids.
func TestCheckFairness(t *testing.T) {
	step := func(th int) schedule.Step { return schedule.Step{Thread: th, Choice: schedule.NoChoice} }
	g := &search.Graph{Names: []string{"done"}, Nodes: []search.Node{
		// State 0: thread 1 spins (back to 0), thread 2 sets done.
		{Enabled: []int{1, 2}, Props: []bool{false}, Edges: []search.Edge{{Step: step(1), To: 0}, {Step: step(2), To: 1}}},
		// State 1: the program ended with done.
		{Props: []bool{true}, End: &search.Outcome{Kind: search.Exited}},
	}}
	f, _ := Parse("F done")
	v, err := Check(g, f)
	if err != nil || v != nil {
		t.Fatalf("F done under weak fairness: violation %+v, error %v; want none", v, err)
	}
	f, _ = Parse("G !done")
	v, err = Check(g, f)
	if err != nil || v == nil {
		t.Fatalf("G !done: no violation (error %v)", err)
	}
	if n := len(v.Lasso.Stem); n == 0 || v.Lasso.Stem[n-1].Thread != 2 || len(v.Lasso.Cycle) != 0 {
		t.Errorf("G !done: lasso %v (%v)*, want a run that ends with thread 2", v.Lasso.Stem, v.Lasso.Cycle)
	}
	checkLasso(t, g, v)
}

func TestCheckErrors(t *testing.T) {
	g := &search.Graph{Names: []string{"p"}, Nodes: []search.Node{{Props: []bool{true}, Cut: true}}}
	f, _ := Parse("F p")
	if _, err := Check(g, f); err == nil {
		t.Error("a graph cut by the depth bound was checked")
	}
	g.Nodes[0].Cut = false
	f, _ = Parse("F nosuch")
	if _, err := Check(g, f); err == nil {
		t.Error("an unknown proposition was accepted")
	}
}
