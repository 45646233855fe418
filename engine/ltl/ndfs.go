package ltl

import (
	"slices"

	"github.com/stdbg/stdbg/engine/search"
)

// ndfs searches the product for an accepting, weakly fair cycle with the
// nested depth-first search of Courcoubetis, Vardi, Wolper and Yannakakis
// (with the early cycle detection of Holzmann, Peled and Yannakakis).
//
// Weak fairness is a set of extra acceptance conditions: for every thread
// t, infinitely often t is disabled or t has just run (GF(!enabled_t ||
// ran_t), which is FG enabled_t -> GF ran_t). So a product state also
// remembers the thread of the step that led to it. The automaton's
// acceptance sets and the fairness sets are degeneralized with a counter:
// the counter moves from set i to set i+1 when the run passes through set
// i, and the accepting states are those of set 0 with counter 0.
//
// It returns the lasso as edges of the product graph (thread 0 for the
// synthetic first edge and the stutter of an ended program), or nil.
func ndfs(p *prod, a *Automaton, g *search.Graph) *search.Lasso {
	threads := map[int]bool{}
	for _, n := range g.Nodes {
		for _, t := range n.Enabled {
			threads[t] = true
		}
	}
	var fair []int
	for t := range threads {
		fair = append(fair, t)
	}
	slices.Sort(fair)
	sets := len(a.Accept) + len(fair)
	if sets == 0 {
		sets = 1 // every state accepts
	}
	in := func(x xstate, i int) bool {
		if i < len(a.Accept) {
			return slices.Contains(a.Accept[i], p.auto[x.node])
		}
		if i-len(a.Accept) >= len(fair) {
			return true
		}
		t := fair[i-len(a.Accept)]
		return x.last == t || !slices.Contains(p.graph.Nodes[x.node].Enabled, t)
	}
	succ := func(x xstate, visit func(e search.Edge, y xstate) bool) bool {
		c := x.count
		if x.node != 0 && in(x, c) {
			c = (c + 1) % sets
		}
		for _, e := range p.graph.Nodes[x.node].Edges {
			if visit(e, xstate{node: e.To, last: e.Step.Thread, count: c}) {
				return true
			}
		}
		return false
	}
	accepting := func(x xstate) bool { return x.node != 0 && x.count == 0 && in(x, 0) }

	blue := map[xstate]bool{}
	red := map[xstate]bool{}
	onStack := map[xstate]int{} // position on the blue stack
	var stack []xstate
	var steps []search.Edge // steps[i] led to stack[i+1]
	var redPath []search.Edge
	var closeAt int

	var dfsRed func(x xstate) bool
	dfsRed = func(x xstate) bool {
		red[x] = true
		return succ(x, func(e search.Edge, y xstate) bool {
			if i, ok := onStack[y]; ok {
				redPath = append(redPath, e)
				closeAt = i
				return true
			}
			if !red[y] {
				redPath = append(redPath, e)
				if dfsRed(y) {
					return true
				}
				redPath = redPath[:len(redPath)-1]
			}
			return false
		})
	}
	var dfsBlue func(x xstate) bool
	dfsBlue = func(x xstate) bool {
		blue[x] = true
		onStack[x] = len(stack)
		stack = append(stack, x)
		found := succ(x, func(e search.Edge, y xstate) bool {
			if blue[y] {
				return false
			}
			steps = append(steps, e)
			if dfsBlue(y) {
				return true
			}
			steps = steps[:len(steps)-1]
			return false
		})
		if found {
			return true
		}
		if accepting(x) && dfsRed(x) {
			return true
		}
		stack = stack[:len(stack)-1]
		delete(onStack, x)
		return false
	}
	if !dfsBlue(xstate{}) {
		return nil
	}
	// stack[0..] is the path to the seed (the top of the stack); the red
	// path goes from the seed back to stack[closeAt].
	l := &search.Lasso{Path: []int{stack[0].node}}
	add := func(e search.Edge, cycle bool) {
		if cycle {
			l.Cycle = append(l.Cycle, e.Step)
			l.CycleOps = append(l.CycleOps, e.Op)
		} else {
			l.Stem = append(l.Stem, e.Step)
			l.StemOps = append(l.StemOps, e.Op)
		}
		l.Path = append(l.Path, e.To)
	}
	for i := 0; i < closeAt; i++ {
		add(steps[i], false)
	}
	for i := closeAt; i < len(steps); i++ {
		add(steps[i], true)
	}
	for _, e := range redPath {
		add(e, true)
	}
	if len(l.Cycle) == 0 {
		return nil
	}
	return l
}

// xstate is a state of the product extended for the nested search: the
// product node, the thread whose step led to it, and the degeneralization
// counter.
type xstate struct {
	node, last, count int
}
