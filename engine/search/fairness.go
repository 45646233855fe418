package search

import (
	"slices"
	"sort"
)

// Fairness is the assumption the liveness checks (Options.Livelock, and
// LTL on the state graph) make of the scheduler: which infinite runs are
// runs a real one could produce.
type Fairness int

const (
	// WeakFairness: a thread enabled in every state of a cycle takes a
	// step in it. A thread that is disabled now and then (one waiting for
	// a mutex that others take and release in turn) may be left out for
	// ever.
	WeakFairness Fairness = iota
	// StrongFairness: a thread enabled in some state of a cycle takes a
	// step in it. A thread waiting for a mutex that is released again and
	// again eventually gets it, as the textbook statements of starvation
	// freedom (readers-writers, dining philosophers) assume of locks.
	// Fewer runs are fair, so fewer cycles are reported: a cycle in which
	// a thread waits for ever for a lock nobody releases, or for a signal
	// nobody sends, is still fair.
	StrongFairness
)

func (f Fairness) String() string {
	if f == StrongFairness {
		return "strongly fair"
	}
	return "weakly fair"
}

// FindLivelockFair is FindLivelock under the fairness f: the cycle
// returned is fair under f.
func FindLivelockFair(g *Graph, f Fairness) *Lasso {
	if f != StrongFairness {
		return FindLivelock(g)
	}
	if g == nil || len(g.Nodes) == 0 {
		return nil
	}
	keep := func(e Edge) bool { return !e.Progress }
	var parts [][]int
	for _, c := range sccs(g, keep) {
		parts = append(parts, StronglyFairParts(g, c, keep)...)
	}
	// The part reached first (least depth, then least state).
	sort.SliceStable(parts, func(i, j int) bool {
		a, b := minDepth(g, parts[i]), minDepth(g, parts[j])
		return g.Nodes[a].Depth < g.Nodes[b].Depth || g.Nodes[a].Depth == g.Nodes[b].Depth && a < b
	})
	for _, p := range parts {
		if l := StrongLasso(g, p, keep, nil); l != nil {
			return l
		}
	}
	return nil
}

// StronglyFairParts returns the parts of the strongly connected component
// c of g (restricted to the edges keep accepts) that hold a strongly fair
// cycle: strongly connected sets of states with a transition, in which
// every thread enabled in one of the states takes one of the transitions.
// A cycle that passes through every state of such a part and takes a
// transition of each of its threads is strongly fair; a strongly fair
// cycle of c lies within one of the parts.
//
// This is the usual decomposition for strong fairness (a Streett
// condition): a thread enabled somewhere in a component but never
// scheduled in it cannot be enabled on a fair cycle, so the states where
// it is enabled are removed, and what is left is split into its strongly
// connected components again, until every part is fair or nothing is left.
func StronglyFairParts(g *Graph, c []int, keep func(Edge) bool) [][]int {
	var out [][]int
	work := [][]int{c}
	for len(work) > 0 {
		comp := work[len(work)-1]
		work = work[:len(work)-1]
		in := make(map[int]bool, len(comp))
		for _, id := range comp {
			in[id] = true
		}
		inside := func(e Edge) bool { return keep(e) && in[e.To] }
		if !nontrivial(g, comp, inside) {
			continue
		}
		taken := map[int]bool{}
		for _, id := range comp {
			for _, e := range g.Nodes[id].Edges {
				if inside(e) {
					taken[e.Step.Thread] = true
				}
			}
		}
		bad := map[int]bool{}
		for _, id := range comp {
			for _, t := range g.Nodes[id].Enabled {
				if !taken[t] {
					bad[t] = true
				}
			}
		}
		if len(bad) == 0 {
			out = append(out, comp)
			continue
		}
		rest := make(map[int]bool, len(comp))
		for _, id := range comp {
			ok := true
			for _, t := range g.Nodes[id].Enabled {
				if bad[t] {
					ok = false
					break
				}
			}
			if ok {
				rest[id] = true
			}
		}
		if len(rest) == 0 {
			continue
		}
		work = append(work, subSCCs(g, rest, keep)...)
	}
	// Deterministic order: by the least state of each part.
	for _, p := range out {
		sort.Ints(p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// subSCCs returns the strongly connected components of the subgraph of g
// induced by the states of set (with the edges keep accepts).
func subSCCs(g *Graph, set map[int]bool, keep func(Edge) bool) [][]int {
	var out [][]int
	for _, c := range sccs(g, func(e Edge) bool { return keep(e) && set[e.To] }) {
		if set[c[0]] {
			out = append(out, c)
		}
	}
	return out
}

// StrongLasso returns a lasso whose cycle lies in part c of g (a part
// returned by StronglyFairParts, with the same keep), passes through every
// state of must (states of c), and is strongly fair: every thread enabled
// in a state the cycle passes through takes a step in it. The cycle is
// built of tours from the part's first-reached state and back, each
// through the nearest transition of a thread that is still owed one, so
// that it stays short.
func StrongLasso(g *Graph, c []int, keep func(Edge) bool, must []int) *Lasso {
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
	cur := start
	taken := map[int]bool{}
	owed := map[int]bool{}
	add := func(hops []hop, cycle bool) {
		for _, h := range hops {
			e := g.Nodes[h.from].Edges[h.edge]
			if cycle {
				l.Cycle = append(l.Cycle, e.Step)
				l.CycleOps = append(l.CycleOps, e.Op)
				taken[e.Step.Thread] = true
				for _, t := range g.Nodes[h.from].Enabled {
					owed[t] = true
				}
			} else {
				l.Stem = append(l.Stem, e.Step)
				l.StemOps = append(l.StemOps, e.Op)
			}
			l.Path = append(l.Path, e.To)
		}
	}
	add(stem, false)
	goTo := func(goal func(int) bool) bool {
		hops, ok := path(g, cur, goal, inside)
		if !ok {
			return false
		}
		add(hops, true)
		if len(hops) > 0 {
			cur = g.Nodes[hops[len(hops)-1].from].Edges[hops[len(hops)-1].edge].To
		}
		return true
	}
	// edgeOf finds a transition of thread t inside the part from v.
	edgeOf := func(v, t int) int {
		for i, e := range g.Nodes[v].Edges {
			if e.Step.Thread == t && inside(v, e) {
				return i
			}
		}
		return -1
	}
	for _, m := range must {
		if !goTo(func(v int) bool { return v == m }) {
			return nil
		}
	}
	for _, t := range g.Nodes[start].Enabled {
		owed[t] = true
	}
	for {
		next := -1
		ids := make([]int, 0, len(owed))
		for t := range owed {
			if !taken[t] {
				ids = append(ids, t)
			}
		}
		if len(ids) > 0 {
			slices.Sort(ids)
			next = ids[0]
		} else if len(l.Cycle) > 0 && cur == start {
			break
		}
		if next >= 0 {
			t := next
			if !goTo(func(v int) bool { return edgeOf(v, t) >= 0 }) {
				return nil // not a part of StronglyFairParts
			}
			add([]hop{{cur, edgeOf(cur, t)}}, true)
			cur = l.Path[len(l.Path)-1]
			continue
		}
		if len(l.Cycle) == 0 {
			// A cycle needs a transition: take any, then come back.
			for i, e := range g.Nodes[cur].Edges {
				if inside(cur, e) {
					add([]hop{{cur, i}}, true)
					cur = e.To
					break
				}
			}
			if len(l.Cycle) == 0 {
				return nil
			}
		}
		if !goTo(func(v int) bool { return v == start }) {
			return nil
		}
	}
	return l
}
