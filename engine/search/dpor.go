package search

import (
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// NewDPOR returns the optimal dynamic partial-order reduction strategy
// (source sets and wakeup trees, after Abdulla, Aronis, Jonsson and Sagonas,
// "Optimal dynamic partial order reduction", POPL 2014, and "Source sets",
// JACM 2017).
//
// Two schedules that differ only in the order of independent operations
// (syncmodel.Dependent) lead to the same state and the same outcome: they
// belong to the same Mazurkiewicz trace. DPOR runs one schedule per trace:
// after each execution it finds the races (pairs of dependent operations of
// different threads with nothing ordering them but the schedule), and for
// each race it plans, in a wakeup tree at the point before the first
// operation, a schedule that reverses it, unless a sleep set shows that one
// already explored or planned covers it. Data choices (stdbg_choose, the
// ready cases of a select) are explored value by value, like DFS.
//
// Happens-before follows program order, thread creation (a thread's first
// operation comes after its creation) and dependence, which covers the
// operations that enable or disable others (an unlock and the lock a thread
// waits for, a signal and the wait it ends, a thread's exit and its join).
// A thread blocked at a scheduling point is an attempt that may race with
// what ran before it blocked, so that a lock taken first by the other thread
// is reversed even though the waiter only proceeds after the unlock. The
// operations still pending when an execution is cut by the depth bound (or
// ends) race with what ran too: a search cut at depth d finds every bug
// that DFS (reduction none) finds within depth d.
//
// Schedules are chosen like DFS where DPOR leaves a choice: the thread that
// ran the previous step first, then the lowest id. Exhausted returns true:
// once Begin returns false every trace within the bound was explored.
func NewDPOR() Strategy { return &dpor{} }

// anyChoice is the choice of a planned event whose value is not fixed: a
// select whose ready cases depend on the state (the index among the ready
// ones may mean another case), or a data choice never run at that point.
// Taking it explores every value.
const anyChoice = -2

// dporEvent is a step with the operation it performs.
type dporEvent struct {
	thread int
	choice int // schedule.NoChoice, a value, or anyChoice
	op     syncmodel.Op
	child  int // the thread a ThreadCreate creates (0 if unknown or not a create)
	idx    int // the number of earlier events of the thread: (thread, idx) names the event in every execution
	// terminal: the event ended the execution it ran in (a failure: a
	// misuse, an assertion, a crash, a panic), so that nothing ran after
	// it. In a sleep set it stands only for the schedules that begin with
	// it at the point where it ran: it commutes with no event that would
	// follow it (see weakInitial), and the points below do not inherit
	// it. Run after an event independent of it, its transition may show
	// what it could not where it ran first: a data race between its plain
	// accesses and those of the other goroutine's transition, which the
	// race detector reports only once both have run.
	terminal bool
}

func (ev *dporEvent) step() schedule.Step {
	return schedule.Step{Thread: ev.thread, Choice: ev.choice}
}

// wakeNode is a node of a wakeup tree: an event planned after its parent's,
// and the events planned after it, in order.
type wakeNode struct {
	ev   dporEvent
	kids []*wakeNode
}

// dporNode is a scheduling point on the current path.
type dporNode struct {
	// blocked are the threads blocked at the point that were not at the
	// point before (or that ran the step before it), with their
	// operations; maxID, the largest id at the point. What the point
	// keeps of every thread is in dpor.pts.
	blocked []Thread
	maxID   int
	ev      dporEvent   // the event taken from here on the current path
	taken   bool        // ev is valid (and not yet in sleep)
	sleep   []dporEvent // events explored from here or an ancestor, not to start again
	wut     []*wakeNode // planned: the wakeup tree's children still to run
	pick    *wakeNode   // chosen by Begin for the next execution
	done    int         // children explored from here (for Explored)
}

// setPoint makes n, the k-th point of the current path, the point p.
func (d *dpor) setPoint(k int, n *dporNode, p Point) {
	ran := -1
	if k > 0 && k-1 < len(d.nodes) {
		ran = d.nodes[k-1].ev.thread
	}
	n.blocked = n.blocked[:0]
	n.maxID = d.pts.set(k, &p, ran, func(i int) { n.blocked = append(n.blocked, p.Threads[i]) })
}

type dpor struct {
	nodes   []dporNode
	sub     []*wakeNode // the planned continuation below the node just taken
	prefix  schedule.Schedule
	started bool
	over    bool // Begin returned false
	div     int  // depth of the first step the current execution chose anew
	// cut reports that an execution of this search was cut by the depth
	// bound (see weakInitial).
	cut bool
	rs  raceScratch
	// pts are what the points of the current path keep of their threads.
	pts pointThreads

	// The objects an operation names may differ from one execution to the
	// next (a Go variable allocated anew by each execution); an event is
	// named by its thread and index instead, and its operation is looked
	// up as the current execution reports it, when it does.
	counts []int // events of each thread on the current path
	// fresh[t][idx] is the operation of event idx of thread t in this
	// execution, valid when its gen is gen (an execution's Begin moves
	// gen on instead of clearing the table).
	fresh [][]freshOp
	gen   uint32
}

// freshOp is an entry of dpor.fresh: the operation, or (ref not nil) where
// it is in the report of the execution that just ended (recorded by the
// race analysis, which reads it before the report changes again).
type freshOp struct {
	gen uint32
	ref *syncmodel.Op
	op  syncmodel.Op
}

// opOf returns the operation of ev as the current execution performs it.
func (d *dpor) opOf(ev *dporEvent) syncmodel.Op { return *d.opRef(ev) }

// opRef is opOf by reference, valid until the table or ev changes.
func (d *dpor) opRef(ev *dporEvent) *syncmodel.Op {
	if t := ev.thread; t >= 0 && t < len(d.fresh) && ev.idx >= 0 && ev.idx < len(d.fresh[t]) {
		if f := &d.fresh[t][ev.idx]; f.gen == d.gen {
			if f.ref != nil {
				return f.ref
			}
			return &f.op
		}
	}
	return &ev.op
}

// nextGen invalidates the operations recorded in fresh.
func (d *dpor) nextGen() {
	if d.gen++; d.gen == 0 { // wrapped: entries this old would look new
		clear(d.fresh)
		d.gen = 1
	}
}

// setFresh records the operation of event idx of thread t in this
// execution.
func (d *dpor) setFresh(t, idx int, op *syncmodel.Op) {
	if f := d.freshAt(t, idx); f != nil {
		f.gen, f.ref, f.op = d.gen, nil, *op
	}
}

// setFreshRef is setFresh for an operation of the execution that ended,
// in its report (an event of its trace, or a thread pending where it
// stopped), which stays as it is until the next one begins: the entry
// points to it instead of copying it (an operation is big).
func (d *dpor) setFreshRef(t, idx int, op *syncmodel.Op) {
	if f := d.freshAt(t, idx); f != nil {
		f.gen, f.ref = d.gen, op
	}
}

// freshAt returns the entry of event idx of thread t, made if need be (nil
// for a negative thread or index).
func (d *dpor) freshAt(t, idx int) *freshOp {
	if t < 0 || idx < 0 {
		return nil
	}
	for t >= len(d.fresh) {
		d.fresh = append(d.fresh, nil)
	}
	row := d.fresh[t]
	for idx >= len(row) {
		row = append(row, freshOp{})
	}
	d.fresh[t] = row
	return &row[idx]
}

// count returns the number of events of thread t on the current path.
func (d *dpor) count(t int) int {
	if t < len(d.counts) {
		return d.counts[t]
	}
	return 0
}

func (d *dpor) inc(t int) {
	for t >= len(d.counts) {
		d.counts = append(d.counts, 0)
	}
	d.counts[t]++
}

// note records the pending operations of a point of this execution: an
// operation whose annotation depends on the state is recorded as it is at
// every point, any other once (the same at every point until it runs).
func (d *dpor) note(p Point) {
	for i := range p.Threads {
		t := &p.Threads[i]
		idx := d.count(t.ID)
		if !syncmodel.StateAnnotated(t.Op.Kind) && t.ID < len(d.fresh) && idx < len(d.fresh[t.ID]) && d.fresh[t.ID][idx].gen == d.gen {
			continue
		}
		d.setFresh(t.ID, idx, &t.Op)
	}
}

func (d *dpor) Init(c Config) {
	d.cut = false
	for i := range d.nodes {
		d.nodes[i] = dporNode{blocked: d.nodes[i].blocked[:0]}
	}
	d.nodes = d.nodes[:0]
	d.pts.reset()
	d.sub = nil
	d.started, d.over = false, false
	d.div = 0
	d.counts = d.counts[:0]
	d.nextGen()
}

func (d *dpor) Begin() (schedule.Schedule, bool) {
	if !d.started {
		d.started = true
		return nil, true
	}
	d.sub = nil
	d.nextGen()
	clear(d.counts)
	for top := len(d.nodes) - 1; top >= 0; top-- {
		n := &d.nodes[top]
		if n.taken {
			n.sleep = append(n.sleep, n.ev)
			n.taken = false
			n.done++
		}
		for len(n.wut) > 0 {
			c := n.wut[0]
			n.wut = n.wut[1:]
			if d.feasible(top, &c.ev) {
				n.pick = c
				d.nodes = d.nodes[:top+1]
				d.prefix = d.prefix[:0]
				for i := 0; i < top; i++ {
					d.prefix = append(d.prefix, d.nodes[i].ev.step())
					d.inc(d.nodes[i].ev.thread)
				}
				return d.prefix, true
			}
		}
	}
	d.nodes = d.nodes[:0]
	d.over = true
	return nil, false
}

// feasible reports whether a planned event can be taken at point k: its
// thread is enabled there and the step was not explored from there
// already. A plan whose thread is blocked reversed a race that cannot be
// reversed (the other operation was what let the thread go on); nothing is
// lost by dropping it.
func (d *dpor) feasible(k int, ev *dporEvent) bool {
	n := &d.nodes[k]
	t, ok := d.pts.at(k, ev.thread)
	if !ok || !t.enabled {
		return false
	}
	nc := int(t.choices)
	if nc == 0 {
		return !asleep(n.sleep, ev.thread, schedule.NoChoice)
	}
	if ev.choice < 0 || ev.choice >= nc {
		return firstAwake(n.sleep, ev.thread, nc) >= 0
	}
	return !asleep(n.sleep, ev.thread, ev.choice)
}

func findThread(ts []Thread, id int) *Thread {
	if i := threadAt(ts, id); i >= 0 {
		return &ts[i]
	}
	return nil
}

func asleep(sleep []dporEvent, thread, choice int) bool {
	for i := range sleep {
		if sleep[i].thread == thread && sleep[i].choice == choice {
			return true
		}
	}
	return false
}

// firstAwake returns the first value of thread's choice among nc that is
// not asleep, or -1.
func firstAwake(sleep []dporEvent, thread, nc int) int {
	for v := 0; v < nc; v++ {
		if !asleep(sleep, thread, v) {
			return v
		}
	}
	return -1
}

func (d *dpor) Next(p Point) (schedule.Step, bool) {
	k := p.Depth
	if k < len(d.nodes) {
		// The backtracking point Begin chose.
		n := &d.nodes[k]
		if k != len(d.nodes)-1 || n.pick == nil {
			return schedule.Step{}, false
		}
		c := n.pick
		n.pick = nil
		d.div = k
		d.sub = c.kids
		d.setPoint(k, n, p)
		d.note(p)
		return d.take(n, p, c.ev.thread, c.ev.choice, c.ev.child), true
	}
	if k > len(d.nodes) {
		return schedule.Step{}, false
	}
	// A new scheduling point.
	if k < cap(d.nodes) {
		d.nodes = d.nodes[:k+1]
	} else {
		d.nodes = append(d.nodes, dporNode{})
	}
	n := &d.nodes[k]
	// (Field by field: n.ev, big, is valid only once taken.)
	n.blocked, n.sleep, n.taken, n.wut, n.pick, n.done = n.blocked[:0], n.sleep[:0], false, nil, nil, 0
	d.setPoint(k, n, p)
	d.note(p)
	if k > 0 {
		parent := &d.nodes[k-1]
		pe := &parent.ev
		peOp := d.opRef(pe)
		for i := range parent.sleep {
			s := &parent.sleep[i]
			if !s.terminal && s.thread != pe.thread && !syncmodel.DependentRef(s.thread, d.opRef(s), pe.thread, peOp) {
				n.sleep = append(n.sleep, *s)
			}
		}
	}
	n.wut, d.sub = d.sub, nil
	for len(n.wut) > 0 {
		c := n.wut[0]
		n.wut = n.wut[1:]
		if d.feasible(k, &c.ev) {
			d.sub = c.kids
			return d.take(n, p, c.ev.thread, c.ev.choice, c.ev.child), true
		}
	}
	// Nothing planned: keep the running thread going, else the lowest id.
	pick := keepRunning(p.Threads, p.Prev, func(t *Thread) bool { return t.Enabled && awake(n.sleep, t) })
	if pick < 0 {
		// Every enabled thread sleeps: what follows was explored elsewhere.
		return schedule.Step{}, false
	}
	t := &p.Threads[pick]
	return d.take(n, p, t.ID, anyChoice, 0), true
}

// awake reports whether some step of thread t is not asleep.
func awake(sleep []dporEvent, t *Thread) bool {
	if nc := t.Choices(); nc > 0 {
		return firstAwake(sleep, t.ID, nc) >= 0
	}
	return !asleep(sleep, t.ID, schedule.NoChoice)
}

// take makes the step of thread with value choice (a planned one, or
// anyChoice; child as planned) the event explored from n on this path, fixing its value
// against the point, and plans the other values of a choice. The event
// is written in place in n: an operation is big.
func (d *dpor) take(n *dporNode, p Point, thread, choice, child int) schedule.Step {
	t := findThread(p.Threads, thread)
	if t == nil {
		// The program is not where it was when this step was planned:
		// Explore finds that the step does not fit and reports the
		// nondeterminism.
		return schedule.Step{Thread: thread, Choice: schedule.NoChoice}
	}
	idx := d.count(t.ID)
	nc := t.Choices()
	switch {
	case nc == 0:
		choice = schedule.NoChoice
	case choice < 0 || choice >= nc:
		choice = firstAwake(n.sleep, t.ID, nc)
	}
	if nc > 0 {
		// Every value of a choice is explored where the choice is made.
		for v := 0; v < nc; v++ {
			if v == choice || asleep(n.sleep, t.ID, v) || planned(n.wut, t.ID, v) {
				continue
			}
			n.wut = append(n.wut, &wakeNode{ev: dporEvent{thread: t.ID, choice: v, op: t.Op, idx: idx}})
		}
	}
	ev := &n.ev
	ev.thread, ev.choice, ev.child, ev.idx, ev.terminal = thread, choice, child, idx, false
	ev.op = t.Op
	n.taken = true
	d.inc(t.ID)
	return ev.step()
}

func planned(wut []*wakeNode, thread, choice int) bool {
	for _, c := range wut {
		if c.ev.thread == thread && c.ev.choice == choice {
			return true
		}
	}
	return false
}

// End finds the races of the execution and plans their reversals.
func (d *dpor) End(r *Report) {
	if r.DepthLimited {
		d.cut = true
	}
	if n := len(r.Trace); n > 0 && n <= len(d.nodes) && ends(r) {
		d.nodes[n-1].ev.terminal = true
	}
	d.races(r)
}

// ends reports whether the last step of an execution ended it while other
// threads could still have run: a failure (a deadlock ends nothing: no
// thread could run).
func ends(r *Report) bool {
	return r.Outcome != nil && r.Outcome.Kind.IsBug() && r.Outcome.Kind != Deadlock
}

func (d *dpor) Exhausted() bool { return true }
