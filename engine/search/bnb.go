package search

import (
	"context"

	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// bnb is the branch-and-bound strategy behind Minimise's exhaustive phase.
// It is a depth-first search in NewDFS's order (the running thread first,
// then the others by increasing id, data values in increasing order) that
// looks for one bug, identified by its Outcome.Key, and keeps the best
// schedule of that bug found so far, under the order
//
//	(length, preemptions) lexicographically: shorter first, then fewer
//	preemptions among schedules of the same length.
//
// Each time it finds the bug it tightens its bound to the new best, and it
// only tries an alternative that can still lead to a strictly better
// schedule: at the scheduling point after k transitions, whose path has p
// preemptions, the next step makes the execution at least k+1 long, so the
// alternative is tried only if k+1 < best length, or k+1 == best length and
// p plus the alternative's own preemption (a switch away from a thread that
// is still enabled) is below the best preemption count. When the tree is
// exhausted, no schedule of the bug is smaller than the last one found (or
// than the initial bound, if none was found).
//
// Backtracking points whose alternatives became useless under a tighter
// bound are dropped by Begin, so tightening prunes the rest of the tree at
// once. Executions abandoned by the bound are reported as pruned.
type bnb struct {
	key string

	// The bound: the best (length, preemptions) known, found by this
	// search or given to it.
	bestLen, bestPre int
	// The best schedule found by this search, nil if none beat the bound.
	best     schedule.Schedule
	bestOut  Outcome
	improved int // how many times the bound was tightened

	nodes   []bnbNode         // the scheduling points of the current path
	path    schedule.Schedule // path[i] is the step taken at nodes[i]
	started bool
}

// bnbNode is a dfsNode that also knows how many preemptions its path has
// and whether a switch away from the previous thread is a preemption.
type bnbNode struct {
	dfsNode
	prev        int  // the thread of the previous step, 0 at the root
	prevEnabled bool // prev is enabled at this point
	pre         int  // preemptions among the steps before this point
	// starts[i] reports that alternative i is a thread's start
	// (syncmodel.ThreadStart).
	starts []bool
}

// preempts is 1 if taking alternative a at n is a preemption, else 0.
func (n *bnbNode) preempts(a dfsAlt) int {
	if n.prevEnabled && a.thread != n.prev {
		return 1
	}
	return 0
}

// newBnB returns the strategy for the bug with the given key, bounded by a
// schedule of that bug of the given length and preemptions: it looks only
// for strictly smaller ones.
func newBnB(key string, bestLen, bestPre int) *bnb {
	return &bnb{key: key, bestLen: bestLen, bestPre: bestPre}
}

// useful reports whether taking alternative a at n, the point at depth k,
// can still lead to a schedule better than the bound.
func (b *bnb) useful(k int, n *bnbNode, a dfsAlt) bool {
	if k+1 < b.bestLen {
		return true
	}
	return k+1 == b.bestLen && n.pre+n.preempts(a) < b.bestPre
}

// Init keeps the bound and the best found: a bnb serves one search.
func (b *bnb) Init(Config) {
	b.nodes = b.nodes[:0]
	b.path = b.path[:0]
	b.started = false
}

func (b *bnb) Begin() (schedule.Schedule, bool) {
	if !b.started {
		b.started = true
		return nil, true
	}
	for len(b.nodes) > 0 {
		top := len(b.nodes) - 1
		n := &b.nodes[top]
		for top < b.bestLen && n.advance() {
			if b.useful(top, n, n.alts[n.cur]) {
				b.path = b.path[:top]
				return b.path, true
			}
		}
		b.nodes = b.nodes[:top]
	}
	b.path = b.path[:0]
	return nil, false
}

func (b *bnb) Next(p Point) (schedule.Step, bool) {
	k := p.Depth
	switch {
	case k < len(b.nodes):
		// The backtracking point: take the alternative Begin selected.
		n := &b.nodes[k]
		b.nodes = b.nodes[:k+1]
		st := n.alts[n.cur].step(n.val)
		b.path = append(b.path[:k], st)
		return st, true
	case k > len(b.nodes):
		return schedule.Step{}, false
	}
	pre := 0
	if k > 0 {
		parent := &b.nodes[k-1]
		pre = parent.pre + parent.preempts(parent.alts[parent.cur])
	}
	if k < cap(b.nodes) {
		b.nodes = b.nodes[:k+1]
	} else {
		b.nodes = append(b.nodes, bnbNode{})
	}
	n := &b.nodes[k]
	n.alts, n.starts, n.cur, n.val = n.alts[:0], n.starts[:0], 0, 0
	n.prev, n.prevEnabled, n.pre = p.Prev, false, pre
	for i := range p.Threads {
		if t := &p.Threads[i]; t.Enabled && t.ID == p.Prev {
			n.alts = append(n.alts, dfsAlt{thread: t.ID, n: t.Choices()})
			n.starts = append(n.starts, t.Op.Kind == syncmodel.ThreadStart)
			n.prevEnabled = true
			break
		}
	}
	if !(n.prevEnabled && k > 0 && b.justStarted(&b.nodes[k-1], p)) {
		for i := range p.Threads {
			if t := &p.Threads[i]; t.Enabled && t.ID != p.Prev {
				n.alts = append(n.alts, dfsAlt{thread: t.ID, n: t.Choices()})
				n.starts = append(n.starts, t.Op.Kind == syncmodel.ThreadStart)
			}
		}
	}
	// The first useful alternative (the one that does not preempt comes
	// first, so at the bound the others are skipped).
	for n.cur < len(n.alts) && !b.useful(k, n, n.alts[n.cur]) {
		n.cur++
	}
	if n.cur == len(n.alts) {
		b.nodes = b.nodes[:k]
		return schedule.Step{}, false
	}
	st := n.alts[n.cur].step(0)
	b.path = append(b.path[:k], st)
	return st, true
}

// justStarted reports whether the step taken at parent was a thread's
// start and nothing at p can need to come between it and that thread's
// next step: then only that thread goes on. A start commutes with every
// operation but the Yields, Sleeps and timers of other threads and a
// process exit (syncmodel.Dependent), so a schedule that runs another
// thread right after a start fails in the same way when the start is moved
// to just before its thread's next step, in as many steps and no more
// preemptions (the thread is entered once instead of twice). The smallest
// schedules of a bug are therefore among those that never switch right
// after a start, unless another thread is about to yield, sleep, wait for
// a timer or exit.
func (b *bnb) justStarted(parent *bnbNode, p Point) bool {
	if parent.cur >= len(parent.starts) || !parent.starts[parent.cur] || parent.alts[parent.cur].thread != p.Prev {
		return false
	}
	for i := range p.Threads {
		t := &p.Threads[i]
		if t.ID == p.Prev || !t.Enabled {
			continue
		}
		switch t.Op.Kind {
		case syncmodel.Yield, syncmodel.Sleep, syncmodel.TimerWait, syncmodel.Exit:
			return false
		}
	}
	return true
}

// End records the bug if the execution found it: by construction the
// schedule beats the bound, which it becomes.
func (b *bnb) End(r *Report) {
	o := r.Outcome
	if o == nil || !o.Kind.IsBug() || o.Key() != b.key {
		return
	}
	l, pre := len(r.Trace), 0
	if l > len(b.nodes) {
		return // cannot happen: every point of the path is a node
	}
	if l > 0 {
		last := &b.nodes[l-1]
		pre = last.pre + last.preempts(last.alts[last.cur])
	}
	if l > b.bestLen || (l == b.bestLen && pre >= b.bestPre) {
		return
	}
	b.bestLen, b.bestPre = l, pre
	b.best = b.best[:0]
	for _, ev := range r.Trace {
		b.best = append(b.best, ev.Step)
	}
	b.bestOut = *o
	b.improved++
}

func (b *bnb) Exhausted() bool { return true }

// smallest runs the branch-and-bound search for a schedule of the bug with
// the given key smaller than (bestLen, bestPre), within maxExecutions
// executions (> 0) and ctx. It returns the strategy, which holds the best
// schedule found (nil if none beat the bound), and Explore's result: its
// Complete field says whether the space was exhausted, i.e. whether the
// final best is proven minimal. A cancelled ctx is not an error here: the
// search just stops incomplete.
func smallest(ctx context.Context, ex Executor, key string, bestLen, bestPre int, maxExecutions int64) (*bnb, *Result, error) {
	b := newBnB(key, bestLen, bestPre)
	res, err := Explore(ctx, ex, b, Options{
		MaxDepth:      bestLen,
		All:           true,
		MaxExecutions: maxExecutions,
	})
	if err != nil && ctx.Err() != nil {
		err = nil
		res.Complete = false
	}
	return b, res, err
}
