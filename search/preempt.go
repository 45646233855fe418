package search

import (
	"slices"

	"github.com/stdbg/stdbg/schedule"
)

// PreemptionBounding is the iterative preemption-bounding strategy
// (Musuvathi and Qadeer, "Iterative Context Bounding for Systematic Testing
// of Multithreaded Programs", PLDI 2007). A preemption is a step that
// switches away from the thread of the previous step although that thread
// could have gone on; switching when it blocked or finished is free.
//
// It explores every schedule with no preemption, then every schedule with
// exactly one, and so on up to the bound K, each schedule exactly once:
// while exploring the schedules with c preemptions, depth first in
// NewDFS's order, an alternative that would be preemption c+1 is not taken
// but remembered (with the path to it) as a root of the next round. Bugs
// that need few preemptions, which are most of them, are found early, and
// the rounds already finished are a guarantee: every schedule with at most
// that many preemptions was explored (within the depth bound).
//
// Exhausted reports that every round up to K was finished. Bounds tells
// how far the search got.
type PreemptionBounding struct {
	limit int

	round   int                 // the preemption count being explored
	roots   []schedule.Schedule // the round's subtrees left to explore, each a path ending in its preemption
	next    []schedule.Schedule // roots of the following round
	base    schedule.Schedule   // the current root
	nodes   []dfsNode           // the points below base on the current path
	path    schedule.Schedule   // base followed by the steps taken at nodes
	started bool
	done    bool // Begin returned false

	// beyond is set when a preemption past the bound was possible: the
	// space holds schedules the search does not explore.
	beyond bool
	rounds []Bound
}

// Bound describes one round of a preemption-bounded search: the schedules
// with exactly Preemptions preemptions.
type Bound struct {
	Preemptions int `json:"preemptions"`
	// Executions counts the executions of the round.
	Executions int64 `json:"executions"`
	// Complete reports that every schedule of the round was explored.
	Complete bool `json:"complete"`
}

// NewPreemptionBounding returns the strategy for at most k preemptions
// (k < 0 counts as 0).
func NewPreemptionBounding(k int) *PreemptionBounding {
	return &PreemptionBounding{limit: max(k, 0)}
}

// Bounds returns the rounds started so far, in order. The rounds before the
// last are complete; the last is complete if the search ran out of
// schedules.
func (b *PreemptionBounding) Bounds() []Bound { return slices.Clone(b.rounds) }

// Saturated reports that the search finished and found no point where a
// further preemption was possible: every schedule (within the depth bound)
// was explored, whatever the number of preemptions.
func (b *PreemptionBounding) Saturated() bool {
	return b.done && !b.beyond
}

// Init implements Strategy.
func (b *PreemptionBounding) Init(Config) {
	b.round = 0
	b.roots = append(b.roots[:0], nil)
	b.next = b.next[:0]
	b.base = nil
	b.nodes = b.nodes[:0]
	b.path = b.path[:0]
	b.started = false
	b.rounds = append(b.rounds[:0], Bound{})
	b.beyond = false
	b.done = false
}

// Begin implements Strategy.
func (b *PreemptionBounding) Begin() (schedule.Schedule, bool) {
	if b.done {
		return nil, false
	}
	// Backtrack within the current root's subtree.
	if b.started {
		for len(b.nodes) > 0 {
			top := len(b.nodes) - 1
			if b.nodes[top].advance() {
				b.path = b.path[:len(b.base)+top]
				return b.path, true
			}
			b.nodes = b.nodes[:top]
		}
	}
	// The next root, of this round or the next.
	for len(b.roots) == 0 {
		b.rounds[len(b.rounds)-1].Complete = true
		if len(b.next) == 0 || b.round == b.limit {
			b.done = true
			return nil, false
		}
		b.round++
		b.roots, b.next = b.next, b.roots[:0]
		b.rounds = append(b.rounds, Bound{Preemptions: b.round})
	}
	b.base = b.roots[0]
	b.roots[0] = nil
	b.roots = b.roots[1:]
	b.nodes = b.nodes[:0]
	b.path = append(b.path[:0], b.base...)
	b.started = true
	return b.path, true
}

// Next implements Strategy.
func (b *PreemptionBounding) Next(p Point) (schedule.Step, bool) {
	k := p.Depth - len(b.base)
	switch {
	case k < 0 || k > len(b.nodes):
		return schedule.Step{}, false
	case k < len(b.nodes):
		// The backtracking point: take the alternative Begin selected.
		n := &b.nodes[k]
		b.nodes = b.nodes[:k+1]
		st := n.alts[n.cur].step(n.val)
		b.path = append(b.path[:len(b.base)+k], st)
		return st, true
	}
	if k < cap(b.nodes) {
		b.nodes = b.nodes[:k+1]
	} else {
		b.nodes = append(b.nodes, dfsNode{})
	}
	n := &b.nodes[k]
	n.alts, n.cur, n.val = n.alts[:0], 0, 0
	prevEnabled := false
	for i := range p.Threads {
		if t := &p.Threads[i]; t.Enabled && t.ID == p.Prev {
			prevEnabled = true
			n.alts = append(n.alts, dfsAlt{thread: t.ID, n: t.Choices()})
		}
	}
	for i := range p.Threads {
		t := &p.Threads[i]
		if !t.Enabled || t.ID == p.Prev {
			continue
		}
		a := dfsAlt{thread: t.ID, n: t.Choices()}
		if !prevEnabled {
			n.alts = append(n.alts, a)
			continue
		}
		// A preemption: a root of the next round, one per value.
		if b.round == b.limit {
			b.beyond = true
		} else {
			for v := 0; v < max(a.n, 1); v++ {
				r := make(schedule.Schedule, 0, p.Depth+1)
				r = append(append(r, b.path[:p.Depth]...), a.step(v))
				b.next = append(b.next, r)
			}
		}
	}
	if len(n.alts) == 0 {
		b.nodes = b.nodes[:k]
		return schedule.Step{}, false
	}
	st := n.alts[0].step(0)
	b.path = append(b.path[:p.Depth], st)
	return st, true
}

// End implements Strategy: it counts the execution in its round.
func (b *PreemptionBounding) End(*Report) { b.rounds[len(b.rounds)-1].Executions++ }

// Exhausted reports whether every round up to the bound was finished.
func (b *PreemptionBounding) Exhausted() bool {
	return b.done
}
