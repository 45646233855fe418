package search

import (
	"slices"

	"github.com/stdbg/stdbg/model/schedule"
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
	limit  int
	delays bool // count delays (NewDelayBounding), not preemptions

	round int // the preemption (or delay) count being explored
	// queue[c] are the roots of round c: subtrees left to explore, each a
	// path ending in the step that makes its count c.
	queue   [][]rootRef
	base    schedule.Schedule // the current root
	nodes   []dfsNode         // the points below base on the current path
	path    schedule.Schedule // base followed by the steps taken at nodes
	started bool
	done    bool // Begin returned false

	// paths holds the paths of the executions that made roots: a root
	// names its path by index and takes a prefix of it, so that many
	// roots of one execution share one copy. pathRoots counts the roots
	// still queued on each; a path no root uses any more is dropped.
	paths     []schedule.Schedule
	pathRoots []int
	made      bool // the current execution made roots (its path is paths[len-1] once it ends)

	// beyond is set when a preemption past the bound was possible: the
	// space holds schedules the search does not explore.
	beyond bool
	rounds []Bound
}

// rootRef is a root of a later round: the first n steps of paths[path],
// then step.
type rootRef struct {
	path, n int
	step    schedule.Step
}

// Bound describes one round of a preemption-bounded search: the schedules
// with exactly Preemptions preemptions; of a delay-bounded one (Delays
// set): the schedules with exactly that many delays.
type Bound struct {
	Preemptions int `json:"preemptions"`
	// Delays reports that Preemptions counts delays (NewDelayBounding).
	Delays bool `json:"delays,omitempty"`
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

// NewDelayBounding returns the delay-bounding strategy (Emmi, Qadeer and
// Rakamaric, "Delay-Bounded Scheduling", POPL 2011) for at most k delays
// (k < 0 counts as 0). It deviates at most k times from a deterministic
// scheduler that runs the thread of the previous step while it can, and
// then the next enabled thread in round-robin order of ids. Taking the
// i-th enabled thread after the one that scheduler would run costs i
// delays; a preemption is a delay, and so is running another thread than
// the round-robin one when the previous thread blocks or ends, a free
// switch for preemption bounding. So 0 delays is one execution, and the
// number of executions with k delays grows with the steps of an execution
// to the power k, not with the orders of its threads: it scales to
// programs with many threads, where preemption bounding does not finish
// its first round (every order of the threads at each free switch). Rounds
// go by delays, as NewPreemptionBounding's go by preemptions.
func NewDelayBounding(k int) *PreemptionBounding {
	return &PreemptionBounding{limit: max(k, 0), delays: true}
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
	b.queue = append(b.queue[:0], []rootRef{{path: -1}})
	b.base = nil
	b.nodes = b.nodes[:0]
	b.path = b.path[:0]
	b.paths, b.pathRoots, b.made = b.paths[:0], b.pathRoots[:0], false
	b.started = false
	b.rounds = append(b.rounds[:0], Bound{Delays: b.delays})
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
	// The next root, of this round or a later one.
	for len(b.queue[b.round]) == 0 {
		b.rounds[len(b.rounds)-1].Complete = true
		if b.round == b.limit || !b.queued() {
			b.done = true
			return nil, false
		}
		b.round++
		b.rounds = append(b.rounds, Bound{Preemptions: b.round, Delays: b.delays})
	}
	q := b.queue[b.round]
	r := q[0]
	b.queue[b.round] = q[1:]
	b.path = b.path[:0]
	if r.path >= 0 {
		b.path = append(append(b.path, b.paths[r.path][:r.n]...), r.step)
		if b.pathRoots[r.path]--; b.pathRoots[r.path] == 0 {
			b.paths[r.path] = nil
		}
	}
	b.base = append(b.base[:0], b.path...)
	b.nodes = b.nodes[:0]
	b.started = true
	return b.path, true
}

// queued reports whether a round after the current one has roots.
func (b *PreemptionBounding) queued() bool {
	for _, q := range b.queue[b.round+1:] {
		if len(q) > 0 {
			return true
		}
	}
	return false
}

// later queues the path up to depth, then st, as a root of round c.
func (b *PreemptionBounding) later(c, depth int, st schedule.Step) {
	if !b.made {
		b.made = true
		b.paths = append(b.paths, nil) // filled in by End
		b.pathRoots = append(b.pathRoots, 0)
	}
	for len(b.queue) <= c {
		b.queue = append(b.queue, nil)
	}
	id := len(b.paths) - 1
	b.pathRoots[id]++
	b.queue[c] = append(b.queue[c], rootRef{path: id, n: depth, step: st})
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
	if b.delays {
		b.delayAlts(n, p)
	} else {
		b.preemptionAlts(n, p)
	}
	if len(n.alts) == 0 {
		b.nodes = b.nodes[:k]
		return schedule.Step{}, false
	}
	st := n.alts[0].step(0)
	b.path = append(b.path[:p.Depth], st)
	return st, true
}

// preemptionAlts fills n with the alternatives of a point that cost no
// preemption, and queues the others as roots of the next round.
func (b *PreemptionBounding) preemptionAlts(n *dfsNode, p Point) {
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
			continue
		}
		for v := 0; v < max(a.n, 1); v++ {
			b.later(b.round+1, p.Depth, a.step(v))
		}
	}
}

// delayAlts fills n with the thread the deterministic scheduler runs (with
// each of its values), and queues the i-th enabled thread after it in
// round-robin order as a root of the round i delays further.
func (b *PreemptionBounding) delayAlts(n *dfsNode, p Point) {
	// The round-robin order starts at the previous thread if it is
	// enabled, else at the first enabled thread after it.
	start := 0
	for i := range p.Threads {
		if p.Threads[i].ID >= p.Prev {
			start = i
			break
		}
	}
	cost := 0
	for j := range p.Threads {
		t := &p.Threads[(start+j)%len(p.Threads)]
		if !t.Enabled {
			continue
		}
		a := dfsAlt{thread: t.ID, n: t.Choices()}
		if cost == 0 {
			n.alts = append(n.alts, a)
			cost++
			continue
		}
		c := b.round + cost
		if c > b.limit {
			b.beyond = true
			return
		}
		for v := 0; v < max(a.n, 1); v++ {
			b.later(c, p.Depth, a.step(v))
		}
		cost++
	}
}

// End implements Strategy: it counts the execution in its round and keeps
// its path if it made roots.
func (b *PreemptionBounding) End(*Report) {
	b.rounds[len(b.rounds)-1].Executions++
	if b.made {
		b.paths[len(b.paths)-1] = slices.Clone(b.path)
		b.made = false
	}
}

// Exhausted reports whether every round up to the bound was finished.
func (b *PreemptionBounding) Exhausted() bool {
	return b.done
}
