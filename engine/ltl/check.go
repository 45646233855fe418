package ltl

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
)

// Violation is a run of the program that violates a formula.
type Violation struct {
	Formula *Formula
	// Lasso is the run. When the program ends on the cycle's state (the
	// run stays in its final state forever) the cycle is empty.
	Lasso *search.Lasso
	// Props are the propositions' values at each program state of the
	// lasso (Lasso.Path), in the order of Names.
	Props [][]bool
	Names []string
	// Fairness is the fairness the run's cycle keeps (CheckFair).
	Fairness search.Fairness
}

// Outcome describes the violation as a bug.
func (v *Violation) Outcome() search.Outcome {
	msg := fmt.Sprintf("the run below violates %s", v.Formula)
	if len(v.Lasso.Cycle) == 0 {
		msg += ": the program ends, and its final state repeats forever"
	} else {
		n := fmt.Sprintf("%d transitions", len(v.Lasso.Cycle))
		if len(v.Lasso.Cycle) == 1 {
			n = "1 transition"
		}
		msg += ": its cycle of " + n + " repeats forever, " + v.Fairness.String() + " to every thread"
	}
	return search.Outcome{Kind: search.Liveness, Message: msg, Where: "ltl:" + v.Formula.String(), Step: len(v.Lasso.Stem)}
}

// Check looks for a run of the program whose state graph is g that
// violates f and is weakly fair: every thread enabled in every state of
// the run's cycle takes a step in it. A program that ends (exit, deadlock)
// stays in its final state forever. It returns nil when f holds on every
// such run, and an error when g is incomplete (cut by the depth bound) or
// f names a proposition the program never registered.
//
// The negation of f becomes a generalized Büchi automaton (Automaton); its
// product with g is searched with a nested depth-first search in which
// weak fairness is one more acceptance condition per thread (see ndfs).
func Check(g *search.Graph, f *Formula) (*Violation, error) {
	if err := checkable(g, f); err != nil {
		return nil, err
	}
	neg := &Formula{Op: Not, L: f}
	aut := neg.Automaton()
	p := product(g, aut)
	if l := ndfs(p, aut, g); l != nil {
		return p.violation(f, g, l), nil
	}
	return nil, nil
}

// checkable reports why g cannot be checked against f, if it cannot.
func checkable(g *search.Graph, f *Formula) error {
	if g == nil || len(g.Nodes) == 0 {
		return fmt.Errorf("no state graph")
	}
	for _, a := range f.Atoms() {
		if !slices.Contains(g.Names, a) {
			known := "the program registers none"
			if len(g.Names) > 0 {
				known = "the program registers " + strings.Join(g.Names, ", ")
			}
			return fmt.Errorf("unknown proposition %q (%s)", a, known)
		}
	}
	cut := 0
	for i := range g.Nodes {
		if g.Nodes[i].Cut {
			cut++
		}
	}
	if cut > 0 {
		return fmt.Errorf("the state graph is incomplete: %d states were cut by the depth bound (raise --max-depth)", cut)
	}
	return nil
}

// CheckSCC is Check by another algorithm: it searches the product for a
// strongly connected component that meets every acceptance set and is
// weakly fair (search.WeaklyFair). Check uses a nested depth-first search;
// the two must agree, which the tests verify.
func CheckSCC(g *search.Graph, f *Formula) (*Violation, error) {
	if err := checkable(g, f); err != nil {
		return nil, err
	}
	neg := &Formula{Op: Not, L: f}
	aut := neg.Automaton()
	p := product(g, aut)
	keep := func(search.Edge) bool { return true }
	for _, c := range search.SCCs(p.graph, keep) {
		if !search.WeaklyFair(p.graph, c, keep) {
			continue
		}
		var must []int
		ok := true
		for _, set := range aut.Accept {
			hit := -1
			for _, id := range c {
				if slices.Contains(set, p.auto[id]) {
					hit = id
					break
				}
			}
			if hit < 0 {
				ok = false
				break
			}
			must = append(must, hit)
		}
		if !ok {
			continue
		}
		l := search.FairLasso(p.graph, c, keep, must)
		if l == nil {
			continue
		}
		return p.violation(f, g, l), nil
	}
	return nil, nil
}

// CheckFair is Check under the fairness fair: with search.StrongFairness
// a run's cycle must give a step to every thread enabled in any of its
// states, not only to those enabled in all of them, so a thread waiting
// for a lock that is released again and again is not starved by it.
// Strong fairness is not a Büchi condition, so CheckFair searches the
// product's strongly connected components (search.StronglyFairParts) for
// a part that meets every acceptance set.
func CheckFair(g *search.Graph, f *Formula, fair search.Fairness) (*Violation, error) {
	if fair != search.StrongFairness {
		return Check(g, f)
	}
	if err := checkable(g, f); err != nil {
		return nil, err
	}
	neg := &Formula{Op: Not, L: f}
	aut := neg.Automaton()
	p := product(g, aut)
	keep := func(search.Edge) bool { return true }
	var best *search.Lasso
	for _, c := range search.SCCs(p.graph, keep) {
		for _, part := range search.StronglyFairParts(p.graph, c, keep) {
			var must []int
			for _, set := range aut.Accept {
				hit := -1
				for _, id := range part {
					if slices.Contains(set, p.auto[id]) {
						hit = id
						break
					}
				}
				if hit < 0 {
					must = nil
					break
				}
				must = append(must, hit)
			}
			if must == nil && len(aut.Accept) > 0 {
				continue
			}
			l := search.StrongLasso(p.graph, part, keep, must)
			if l != nil && (best == nil || len(l.Stem)+len(l.Cycle) < len(best.Stem)+len(best.Cycle)) {
				best = l
			}
		}
	}
	if best == nil {
		return nil, nil
	}
	v := p.violation(f, g, best)
	v.Fairness = search.StrongFairness
	return v, nil
}

// prod is the product of a state graph with an automaton, itself a
// search.Graph whose node 0 is a synthetic start with an edge to each
// initial product state.
type prod struct {
	graph *search.Graph
	prog  []int // product node -> program node (-1: the start)
	auto  []int // product node -> automaton state
}

func product(g *search.Graph, a *Automaton) *prod {
	p := &prod{graph: &search.Graph{Names: g.Names}}
	index := map[[2]int]int{}
	p.graph.Nodes = append(p.graph.Nodes, search.Node{})
	p.prog, p.auto = append(p.prog, -1), append(p.auto, -1)
	matches := func(s, q int) bool {
		props := g.Nodes[s].Props
		return a.States[q].Matches(func(name string) bool {
			i := slices.Index(g.Names, name)
			return i >= 0 && i < len(props) && props[i]
		})
	}
	var queue []int
	get := func(s, q int) int {
		k := [2]int{s, q}
		if id, ok := index[k]; ok {
			return id
		}
		id := len(p.graph.Nodes)
		index[k] = id
		n := g.Nodes[s]
		p.graph.Nodes = append(p.graph.Nodes, search.Node{Hash: uint64(id), Depth: n.Depth, Enabled: n.Enabled, Props: n.Props, End: n.End})
		p.prog, p.auto = append(p.prog, s), append(p.auto, q)
		queue = append(queue, id)
		return id
	}
	for q := range a.States {
		if a.States[q].Initial && matches(0, q) {
			id := get(0, q)
			p.graph.Nodes[0].Edges = append(p.graph.Nodes[0].Edges, search.Edge{Step: schedule.Step{Choice: schedule.NoChoice}, To: id})
		}
	}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		s, q := p.prog[id], p.auto[id]
		edges := g.Nodes[s].Edges
		if g.Nodes[s].End != nil {
			// The program ended: its last state repeats forever.
			edges = []search.Edge{{Step: schedule.Step{Thread: 0, Choice: schedule.NoChoice}, To: s, Op: "end"}}
		}
		for _, e := range edges {
			for _, q2 := range a.States[q].Succ {
				if matches(e.To, q2) {
					to := get(e.To, q2)
					p.graph.Nodes[id].Edges = append(p.graph.Nodes[id].Edges, search.Edge{Step: e.Step, To: to, Op: e.Op})
				}
			}
		}
	}
	return p
}

// violation turns a lasso of the product into one of the program: the
// synthetic first edge and the stutter of an ended program are dropped.
func (p *prod) violation(f *Formula, g *search.Graph, l *search.Lasso) *Violation {
	v := &Violation{Formula: f, Names: g.Names, Lasso: &search.Lasso{}}
	out := v.Lasso
	// l.Stem[0] is the synthetic edge from the start; thread 0 also marks
	// the stutter of an ended program.
	for i := 1; i < len(l.Stem); i++ {
		if l.Stem[i].Thread == 0 {
			continue
		}
		out.Stem = append(out.Stem, l.Stem[i])
		out.StemOps = append(out.StemOps, l.StemOps[i])
	}
	out.Cycle = schedule.Schedule{}
	for i, s := range l.Cycle {
		if s.Thread == 0 {
			continue
		}
		out.Cycle = append(out.Cycle, s)
		out.CycleOps = append(out.CycleOps, l.CycleOps[i])
	}
	// The product may go round a program cycle several times before its
	// own cycle closes: keep one period when the program is back at the
	// cycle's first state after it.
	progPath := make([]int, len(l.Path))
	for i, id := range l.Path {
		progPath[i] = p.prog[id]
	}
	l.Path = l.Path[:len(l.Path):len(l.Path)]
	if n := len(out.Cycle); n > 1 {
		start := len(l.Path) - 1 - len(l.Cycle)
		for period := 1; period < len(l.Cycle); period++ {
			if len(l.Cycle)%period != 0 || progPath[start+period] != progPath[start] {
				continue
			}
			repeats := true
			for i := period; i < len(l.Cycle); i++ {
				if l.Cycle[i] != l.Cycle[i-period] {
					repeats = false
					break
				}
			}
			if repeats {
				l.Cycle, l.CycleOps = l.Cycle[:period], l.CycleOps[:period]
				l.Path = l.Path[:start+period+1]
				out.Cycle, out.CycleOps = nil, nil
				for i, s := range l.Cycle {
					if s.Thread != 0 {
						out.Cycle = append(out.Cycle, s)
						out.CycleOps = append(out.CycleOps, l.CycleOps[i])
					}
				}
				if out.Cycle == nil {
					out.Cycle = schedule.Schedule{}
				}
				break
			}
		}
	}
	for i, id := range l.Path {
		if i == 0 {
			continue
		}
		if s := p.prog[id]; s >= 0 && (len(out.Path) == 0 || g.Nodes[s].End == nil || out.Path[len(out.Path)-1] != s) {
			out.Path = append(out.Path, s)
			v.Props = append(v.Props, g.Nodes[s].Props)
		}
	}
	return v
}
