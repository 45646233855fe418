package search

import "github.com/stdbg/stdbg/model/schedule"

// NewDFS returns the exhaustive depth-first strategy: it explores every
// schedule (every interleaving and every data value) within the depth bound,
// each exactly once.
//
// At every scheduling point the alternatives are tried in this order: first
// the thread that ran the previous step, if it is still enabled, so that the
// running thread keeps going and the first counterexample found has few
// context switches; then the other enabled threads by increasing id. A data
// choice among n values is n alternatives, thread t with value 0, 1, ... n-1,
// in that order.
//
// The search tree is kept as a stack of the scheduling points of the current
// path; backtracking goes to the deepest point with an untried alternative
// and the next execution replays the path to it.
func NewDFS() Strategy { return &dfs{} }

type dfs struct {
	nodes   []dfsNode         // the scheduling points of the current path
	path    schedule.Schedule // path[i] is the step taken at nodes[i]
	started bool
	over    bool // Begin returned false
}

// dfsNode is a scheduling point of the current path with its alternatives:
// alts[cur] with value val is the one being explored.
type dfsNode struct {
	alts []dfsAlt
	cur  int
	val  int
}

// dfsAlt is an enabled thread; n > 0 is the number of values of its data
// choice, each a separate alternative.
type dfsAlt struct {
	thread int
	n      int
}

func (a dfsAlt) step(val int) schedule.Step {
	if a.n > 0 {
		return schedule.Step{Thread: a.thread, Choice: val}
	}
	return schedule.Step{Thread: a.thread, Choice: schedule.NoChoice}
}

// advance moves to the next alternative, reporting false if none is left.
func (n *dfsNode) advance() bool {
	if a := n.alts[n.cur]; a.n > 0 && n.val+1 < a.n {
		n.val++
		return true
	}
	n.cur++
	n.val = 0
	return n.cur < len(n.alts)
}

func (d *dfs) Init(Config) {
	d.nodes = d.nodes[:0]
	d.path = d.path[:0]
	d.started, d.over = false, false
}

func (d *dfs) Begin() (schedule.Schedule, bool) {
	if !d.started {
		d.started = true
		return nil, true
	}
	for len(d.nodes) > 0 {
		top := len(d.nodes) - 1
		if d.nodes[top].advance() {
			d.path = d.path[:top]
			return d.path, true
		}
		d.nodes = d.nodes[:top]
	}
	d.path = d.path[:0]
	d.over = true
	return nil, false
}

func (d *dfs) Next(p Point) (schedule.Step, bool) {
	k := p.Depth
	switch {
	case k < len(d.nodes):
		// The backtracking point: take the alternative Begin selected.
		n := &d.nodes[k]
		d.nodes = d.nodes[:k+1]
		st := n.alts[n.cur].step(n.val)
		d.path = append(d.path[:k], st)
		return st, true
	case k > len(d.nodes):
		// Explore never skips a point; refuse rather than corrupt the stack.
		return schedule.Step{}, false
	}
	// A new scheduling point: record its alternatives, reusing the memory
	// of an earlier node at this depth.
	if k < cap(d.nodes) {
		d.nodes = d.nodes[:k+1]
	} else {
		d.nodes = append(d.nodes, dfsNode{})
	}
	n := &d.nodes[k]
	n.alts, n.cur, n.val = n.alts[:0], 0, 0
	for i := range p.Threads {
		if t := &p.Threads[i]; t.Enabled && t.ID == p.Prev {
			n.alts = append(n.alts, dfsAlt{thread: t.ID, n: t.Choices()})
			break
		}
	}
	for i := range p.Threads {
		if t := &p.Threads[i]; t.Enabled && t.ID != p.Prev {
			n.alts = append(n.alts, dfsAlt{thread: t.ID, n: t.Choices()})
		}
	}
	if len(n.alts) == 0 {
		d.nodes = d.nodes[:k]
		return schedule.Step{}, false
	}
	st := n.alts[0].step(0)
	d.path = append(d.path[:k], st)
	return st, true
}

// End has nothing to learn: the path is the executed trace (Explore
// checks that the prefix replays exactly).
func (d *dfs) End(*Report) {}

func (d *dfs) Exhausted() bool { return true }
