package search

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/stdbg/stdbg/model/schedule"
)

// Lasso is an infinite run: Stem leads from the initial state to a state
// from which Cycle leads back to that same state.
type Lasso struct {
	Stem, Cycle schedule.Schedule
	// StemOps and CycleOps name the operation of each step.
	StemOps, CycleOps []string
	// Path are the graph nodes visited: Path[0] is the initial state,
	// Path[len(Stem)] the start of the cycle, and the last node the end of
	// the cycle (the same state).
	Path []int
}

// Outcome describes the lasso as a livelock, weakly fair.
func (l *Lasso) Outcome() Outcome { return l.OutcomeFair(WeakFairness) }

// OutcomeFair describes the lasso as a livelock fair under f.
func (l *Lasso) OutcomeFair(f Fairness) Outcome {
	threads := map[int]bool{}
	where := map[string]bool{}
	for i, s := range l.Cycle {
		threads[s.Thread] = true
		where[fmt.Sprintf("%d:%s", s.Thread, l.CycleOps[i])] = true
	}
	ids := make([]int, 0, len(threads))
	for t := range threads {
		ids = append(ids, t)
	}
	sort.Ints(ids)
	ws := make([]string, 0, len(where))
	for w := range where {
		ws = append(ws, w)
	}
	sort.Strings(ws)
	return Outcome{
		Kind: Livelock,
		Message: fmt.Sprintf("no progress: %s can run forever in a cycle of %s without progress, every thread enabled %s it being scheduled in it",
			threadList(ids), plural(len(l.Cycle), "transition"), map[Fairness]string{WeakFairness: "throughout", StrongFairness: "anywhere in"}[f]),
		Where: strings.Join(ws, ","),
		Step:  len(l.Stem),
	}
}

func threadList(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	if len(ids) == 1 {
		return "thread " + s[0]
	}
	return "threads " + strings.Join(s, ", ")
}

func plural(n int, w string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", w)
	}
	return fmt.Sprintf("%d %ss", n, w)
}

// bugLasso records a livelock bug.
func (x *explorer) bugLasso(o *Outcome, l *Lasso) {
	if x.opts.All {
		if x.seen[o.Key()] {
			return
		}
		if x.seen == nil {
			x.seen = make(map[string]bool)
		}
		x.seen[o.Key()] = true
	}
	x.res.Bugs = append(x.res.Bugs, Bug{Schedule: l.Stem, Cycle: l.Cycle, Outcome: *o})
	if x.opts.OnBug != nil {
		x.opts.OnBug(x.res.Bugs[len(x.res.Bugs)-1])
	}
	x.res.Stats.Bugs = len(x.res.Bugs)
}

// FindLivelock looks in g for a reachable cycle of transitions none of
// which marks progress and which is weakly fair: every thread enabled in
// every state of the cycle is scheduled in it. It returns one as a lasso,
// or nil if there is none.
//
// It computes the strongly connected components of the graph restricted
// to transitions without progress. A component with at least one
// transition holds a weakly fair cycle exactly when each thread is either
// disabled in one of its states or takes one of its transitions: then a
// cycle through those states and transitions is fair, and otherwise some
// thread is enabled throughout every cycle of the component and never
// scheduled in it. Among such components the one reached first (least
// depth) is reported.
func FindLivelock(g *Graph) *Lasso {
	if g == nil || len(g.Nodes) == 0 {
		return nil
	}
	keep := func(e Edge) bool { return !e.Progress }
	comps := sccs(g, keep)
	best, bestDepth := -1, 0
	for ci, c := range comps {
		if !nontrivial(g, c, keep) || !weaklyFair(g, c, keep) {
			continue
		}
		d := g.Nodes[minDepth(g, c)].Depth
		if best < 0 || d < bestDepth {
			best, bestDepth = ci, d
		}
	}
	if best < 0 {
		return nil
	}
	return buildLasso(g, comps[best], keep)
}

// FairLasso returns a lasso through the component c of g (restricted to
// the edges keep accepts) that is weakly fair and passes through every node
// of must (nodes of c), for liveness checkers built on the graph.
func FairLasso(g *Graph, c []int, keep func(Edge) bool, must []int) *Lasso {
	return buildLassoThrough(g, c, keep, must)
}

// SCCs returns the strongly connected components of g restricted to the
// edges keep accepts.
func SCCs(g *Graph, keep func(Edge) bool) [][]int { return sccs(g, keep) }

// WeaklyFair reports whether component c (restricted to the edges keep
// accepts) holds a weakly fair cycle: it has a transition, and every
// thread is disabled in one of its states or takes one of its
// transitions. A terminal state's implicit stutter counts as a transition.
func WeaklyFair(g *Graph, c []int, keep func(Edge) bool) bool {
	return nontrivial(g, c, keep) && weaklyFair(g, c, keep)
}

func nontrivial(g *Graph, c []int, keep func(Edge) bool) bool {
	if len(c) > 1 {
		return true
	}
	for _, e := range g.Nodes[c[0]].Edges {
		if keep(e) && e.To == c[0] {
			return true
		}
	}
	return false
}

func weaklyFair(g *Graph, c []int, keep func(Edge) bool) bool {
	in := make(map[int]bool, len(c))
	for _, id := range c {
		in[id] = true
	}
	taken := map[int]bool{}
	everywhere := map[int]int{} // thread -> number of states it is enabled in
	for _, id := range c {
		n := &g.Nodes[id]
		for _, t := range n.Enabled {
			everywhere[t]++
		}
		for _, e := range n.Edges {
			if keep(e) && in[e.To] {
				taken[e.Step.Thread] = true
			}
		}
	}
	for t, k := range everywhere {
		if k == len(c) && !taken[t] {
			return false
		}
	}
	return true
}

// minDepth returns the node of c reached first (least depth, then least
// id).
func minDepth(g *Graph, c []int) int {
	best := c[0]
	for _, id := range c {
		d, bd := g.Nodes[id].Depth, g.Nodes[best].Depth
		if d < bd || d == bd && id < best {
			best = id
		}
	}
	return best
}

// sccs is Tarjan's algorithm, iterative.
func sccs(g *Graph, keep func(Edge) bool) [][]int {
	n := len(g.Nodes)
	index := make([]int, n)
	low := make([]int, n)
	on := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	var out [][]int
	next := 0
	type frame struct{ v, ei int }
	for root := 0; root < n; root++ {
		if index[root] >= 0 {
			continue
		}
		call := []frame{{root, 0}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		on[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			edges := g.Nodes[v].Edges
			if f.ei < len(edges) {
				e := edges[f.ei]
				f.ei++
				if !keep(e) {
					continue
				}
				w := e.To
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					on[w] = true
					call = append(call, frame{w, 0})
				} else if on[w] {
					low[v] = min(low[v], index[w])
				}
				continue
			}
			if low[v] == index[v] {
				var c []int
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					on[w] = false
					c = append(c, w)
					if w == v {
						break
					}
				}
				out = append(out, c)
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				u := call[len(call)-1].v
				low[u] = min(low[u], low[v])
			}
		}
	}
	return out
}

// hop is one edge of a path: from node, the edge index.
type hop struct{ from, edge int }

// path returns the shortest path from a to a node satisfying goal, using
// the edges accepted by ok (nil: none found; empty: a satisfies goal).
func path(g *Graph, a int, goal func(int) bool, ok func(from int, e Edge) bool) ([]hop, bool) {
	if goal(a) {
		return nil, true
	}
	prev := map[int]hop{a: {-1, -1}}
	queue := []int{a}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for i, e := range g.Nodes[v].Edges {
			if !ok(v, e) {
				continue
			}
			if _, seen := prev[e.To]; seen {
				continue
			}
			prev[e.To] = hop{v, i}
			if goal(e.To) {
				var hops []hop
				for w := e.To; w != a; {
					h := prev[w]
					hops = append(hops, h)
					w = h.from
				}
				slices.Reverse(hops)
				return hops, true
			}
			queue = append(queue, e.To)
		}
	}
	return nil, false
}

func buildLasso(g *Graph, c []int, keep func(Edge) bool) *Lasso {
	return buildLassoThrough(g, c, keep, nil)
}

func buildLassoThrough(g *Graph, c []int, keep func(Edge) bool, must []int) *Lasso {
	in := make(map[int]bool, len(c))
	for _, id := range c {
		in[id] = true
	}
	inside := func(_ int, e Edge) bool { return keep(e) && in[e.To] }
	start := minDepth(g, c)
	l := &Lasso{Path: []int{0}}
	stem, ok := path(g, 0, func(v int) bool { return v == start }, func(int, Edge) bool { return true })
	if !ok {
		return nil
	}
	cur := 0
	taken := map[int]bool{}  // threads scheduled in the cycle so far
	passed := map[int]bool{} // states the cycle passed through so far
	add := func(hops []hop, cycle bool) {
		for _, h := range hops {
			e := g.Nodes[h.from].Edges[h.edge]
			if cycle {
				l.Cycle = append(l.Cycle, e.Step)
				l.CycleOps = append(l.CycleOps, e.Op)
				taken[e.Step.Thread] = true
				passed[h.from] = true
			} else {
				l.Stem = append(l.Stem, e.Step)
				l.StemOps = append(l.StemOps, e.Op)
			}
			l.Path = append(l.Path, e.To)
			cur = e.To
		}
	}
	add(stem, false)
	goTo := func(goal func(int) bool) {
		hops, _ := path(g, cur, goal, inside)
		add(hops, true)
	}
	takeEdge := func(from, ei int) {
		goTo(func(v int) bool { return v == from })
		add([]hop{{from, ei}}, true)
	}
	// Every thread: take one of its transitions in the component, or
	// pass through a state where it is disabled.
	threads := map[int]bool{}
	for _, id := range c {
		for _, t := range g.Nodes[id].Enabled {
			threads[t] = true
		}
	}
	ids := make([]int, 0, len(threads))
	for t := range threads {
		ids = append(ids, t)
	}
	sort.Ints(ids)
	for _, t := range ids {
		if taken[t] {
			continue
		}
		skip := false
		for v := range passed {
			if !slices.Contains(g.Nodes[v].Enabled, t) {
				skip = true
				break
			}
		}
		if skip {
			continue
		}
		from, ei := -1, -1
		for _, id := range c {
			for i, e := range g.Nodes[id].Edges {
				if e.Step.Thread == t && inside(id, e) {
					from, ei = id, i
					break
				}
			}
			if from >= 0 {
				break
			}
		}
		if from >= 0 {
			takeEdge(from, ei)
			continue
		}
		goTo(func(v int) bool { return !slices.Contains(g.Nodes[v].Enabled, t) })
	}
	for _, m := range must {
		goTo(func(v int) bool { return v == m })
	}
	if len(l.Cycle) == 0 {
		// A cycle needs at least one transition.
		for i, e := range g.Nodes[cur].Edges {
			if inside(cur, e) {
				add([]hop{{cur, i}}, true)
				break
			}
		}
	}
	goTo(func(v int) bool { return v == start })
	return l
}
