package search

import (
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// raceScratch is the memory race detection reuses across executions.
type raceScratch struct {
	width    int     // vector clock width: largest thread id + 1
	rows     int     // rows of vc the last call computed (at width)
	vc       []int32 // vc[i*width+t]: 1 + position of the last event of thread t that happens before or is event i
	tmp      []int32 // the clock of a pending operation
	last     []int   // last[t]: position of t's latest event so far, -1
	created  []int   // created[t]: position of the event that created t, -1
	child    []int   // child[i]: the thread event i created, 0
	threadOf []int   // threadOf[i]: the thread of event i
	idx      []int   // idx[i]: the number of earlier events of event i's thread
	prev     []int   // prev[i]: the position of the previous event of event i's thread, -1
	heap     []int   // the walk back over the candidate races (see candStart)
	cnt      []int   // cnt[t]: events of thread t so far in the pass
	v        []dporEvent
	wv       []dporEvent // what insertWake has left to insert
	hb       []dporEvent // pending: the events that happen before a pending operation, then it
	final    []Thread
	ev       dporEvent // the event whose races are being planned
	misuse   int       // the step that committed the misuse that ended the execution, -1
	// work counts the elementary steps of the analysis (events and
	// threads looked at, planned events moved): the tests hold it
	// proportional to the length of the executions.
	work int64
}

func (rs *raceScratch) row(i int) []int32 { return rs.vc[i*rs.width : (i+1)*rs.width] }

// races runs the race detection of Optimal DPOR on the execution just
// ended. Races whose later operation was already in an earlier execution
// (before the point where this one chose anew) were handled then.
func (d *dpor) races(r *Report) {
	tr := r.Trace
	n := len(tr)
	rs := &d.rs
	final := d.finalThreads(r)

	width := 2
	creates := 0
	for i := range tr {
		width = max(width, tr[i].Step.Thread+1)
		if tr[i].Op.Kind == syncmodel.ThreadCreate {
			creates++
		}
	}
	width = max(width, creates+2)
	for _, t := range final {
		width = max(width, t.ID+1)
	}
	for i := 0; i < n && i < len(d.nodes); i++ {
		width = max(width, d.nodes[i].maxID+1)
	}
	// The events before the point where this execution chose anew are
	// the last execution's, with the same clocks: rows the last call
	// computed at the same width are kept.
	reuse := 0
	if width == rs.width && cap(rs.vc) >= n*width {
		reuse = min(d.div, rs.rows, n)
	}
	rs.width, rs.rows = width, n
	rs.vc = grow(rs.vc, n*width)
	rs.tmp = grow(rs.tmp, width)
	rs.last = fill(rs.last, width, -1)
	rs.created = fill(rs.created, width, -1)
	rs.child = fill(rs.child, n, 0)
	rs.threadOf = fill(rs.threadOf, n, 0)
	rs.idx = fill(rs.idx, n, 0)
	rs.cnt = fill(rs.cnt, width, 0)
	rs.prev = fill(rs.prev, n, -1)
	for i := range tr {
		t := tr[i].Step.Thread
		rs.threadOf[i] = t
		rs.idx[i] = rs.cnt[t]
		rs.cnt[t]++
		rs.prev[i] = rs.last[t]
		rs.last[t] = i
		d.setFreshRef(t, rs.idx[i], &tr[i].Op)
	}
	for t := range rs.last {
		rs.last[t] = -1
	}
	for k := range final {
		if t := &final[k]; t.ID < width {
			d.setFreshRef(t.ID, rs.cnt[t.ID], &t.Op)
		}
	}
	clear(rs.cnt)

	// A misuse ends the execution where it is committed: which of two
	// operations on the object commits it decides where it is reported,
	// so the last step of an execution that ended in a misuse depends on
	// every earlier operation on its object.
	misuse := -1
	if r.Outcome != nil && r.Outcome.Kind == Misuse && n > 0 {
		misuse = n - 1
	}
	rs.misuse = misuse
	nc := 0
	for i := 0; ; i++ {
		if i >= d.div {
			switch {
			case i == n:
				// An execution stopped by a failure ends every thread:
				// its last step is dependent on all that was pending.
				failed := ends(r)
				for k := range final {
					d.pending(tr, i, &final[k], failed, r.DepthLimited)
				}
			case i < len(d.nodes):
				// A thread blocked at point i, and not already blocked on
				// the same operation at i-1 (then its races were found
				// there: between the two nothing it could race with has
				// run that it could have gone before).
				for k := range d.nodes[i].blocked {
					d.pending(tr, i, &d.nodes[i].blocked[k], false, false)
				}
			}
		}
		if i == n {
			break
		}
		ev := &tr[i]
		t := ev.Step.Thread
		row := rs.row(i)
		var x *dporEvent // i as a planned event, once a race needs it
		if i < reuse {
			goto clocked
		}
		rs.base(row, t)
		for rs.candStart(row, t); ; {
			j := rs.candNext(row)
			if j < 0 {
				break
			}
			if tj := tr[j].Step.Thread; !(syncmodel.DependentInOrderRef(tj, &tr[j].Op, t, &ev.Op) ||
				i == misuse && syncmodel.SharesObject(tr[j].Op, ev.Op)) {
				continue
			}
			// j is a race of i: dependent, and no later event dependent
			// on i happens after j.
			if i >= d.div {
				if x == nil {
					// (Made once for the event, in place: an
					// operation is big.)
					x = &rs.ev
					*x = dporEvent{thread: t, choice: plannedChoice(&ev.Op, ev.Step.Choice), idx: rs.idx[i]}
					x.op = ev.Op
				}
				d.race(tr, j, i, x)
			}
			join(row, rs.row(j))
		}
		row[t] = int32(i + 1)
	clocked:
		rs.last[t] = i
		rs.cnt[t]++
		if ev.Op.Kind == syncmodel.ThreadCreate {
			nc++
			if c := nc + 1; c < width {
				rs.created[c] = i
				rs.child[i] = c
			}
		}
	}
}

// base sets row to what happens before the next event of thread t: its
// previous event, or its creation.
func (rs *raceScratch) base(row []int32, t int) {
	switch {
	case rs.last[t] >= 0:
		copy(row, rs.row(rs.last[t]))
	case rs.created[t] >= 0:
		copy(row, rs.row(rs.created[t]))
	default:
		clear(row)
	}
}

// before reports whether event a happens before the next event of thread p
// (before its previous event or its creation).
func (rs *raceScratch) before(a, p int) bool {
	var row []int32
	switch {
	case rs.last[p] >= 0:
		row = rs.row(rs.last[p])
	case rs.created[p] >= 0:
		row = rs.row(rs.created[p])
	default:
		return false
	}
	return int(row[rs.threadOf[a]]) > a
}

// The races of an event are found walking back from it over the events
// of other threads that do not happen before it, the latest first, each
// race's clock joined to the event's as it is found (so that what happens
// before a race is no race). The events of a thread that happen before an
// event are that thread's earliest ones: rather than walk back over the
// whole trace, which made each step of a deep execution cost its depth,
// the walk keeps each thread's latest event not yet looked at in a heap of
// positions, and a thread's turn ends at its first event that happens
// before. An event looked at costs the logarithm of the number of threads.

// candStart starts the walk back for an event of thread t (or the operation
// t has pending) at the current position of the pass (rs.last holds each
// thread's latest event before it), with row the event's clock so far.
func (rs *raceScratch) candStart(row []int32, t int) {
	h := rs.heap[:0]
	rs.work += int64(len(rs.last))
	for u, j := range rs.last {
		if u != t && j >= 0 && int(row[u]) <= j {
			h = append(h, j)
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	rs.heap = h
}

// candNext returns the latest event not yet looked at that does not happen
// before row (which may have grown since the last call), or -1 when none
// is left.
func (rs *raceScratch) candNext(row []int32) int {
	h := rs.heap
	for len(h) > 0 {
		rs.work++
		j := h[0]
		u := rs.threadOf[j]
		if p := rs.prev[j]; int(row[u]) <= j && p >= 0 && int(row[u]) <= p {
			h[0] = p // the thread's turn goes on with its previous event
		} else {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		siftDown(h, 0)
		if int(row[u]) <= j {
			rs.heap = h
			return j
		}
		// j happens before, and so do the thread's earlier events.
	}
	rs.heap = h
	return -1
}

// siftDown restores the order of the max-heap h below position i.
func siftDown(h []int, i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1] > h[c] {
			c++
		}
		if h[i] >= h[c] {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// pending treats the operation thread t is about to perform at point k as
// an event: a thread that blocked there, or any thread at the point where
// the execution stopped. With afterLast the last step of the trace is taken
// as dependent on it. With cut (the execution was cut by the depth bound),
// it also plans the operation at the earliest point it could have run,
// right after what happens before it: a schedule that runs it there may
// reach within the bound what this one could not.
func (d *dpor) pending(tr []Event, k int, t *Thread, afterLast, cut bool) {
	rs := &d.rs
	if t.ID >= rs.width {
		return
	}
	choice := schedule.NoChoice
	if t.Choices() > 0 || t.Op.Kind == syncmodel.Choose {
		choice = anyChoice
	}
	row := rs.tmp
	rs.base(row, t.ID)
	var x *dporEvent // t's operation as a planned event, once a race needs it
	for rs.candStart(row, t.ID); ; {
		j := rs.candNext(row)
		if j < 0 {
			break
		}
		if tj := tr[j].Step.Thread; !(afterLast && j == k-1 || syncmodel.DependentInOrderRef(tj, &tr[j].Op, t.ID, &t.Op)) {
			continue
		}
		if x == nil {
			x = &rs.ev
			*x = dporEvent{thread: t.ID, choice: choice, idx: rs.cnt[t.ID]}
			x.op = t.Op
		}
		d.race(tr, j, k, x)
		join(row, rs.row(j))
	}
	if !cut {
		return
	}
	// Within the bound, t's operation could have run earlier: at any point
	// q before an event that does not happen before it, once the events
	// after q that do happen before it have run. A schedule that runs it
	// there may reach what this one could not before the cut (the race
	// whose second event lies beyond the cut). Plan each; the sleep sets
	// and wakeup trees drop what was explored or planned already.
	//
	// The schedule planned at q (the events after q that happen before
	// the operation, then the operation) is built from its end as q goes
	// down, one event at most per point: the loop costs the length of the
	// trace plus the plans, where building each plan anew cost the length
	// of the trace for every point.
	low := -1 // the first point that does not happen before the operation
	for q := 0; q < k && q < len(d.nodes); q++ {
		rs.work++
		if int(row[tr[q].Step.Thread]) <= q {
			low = q
			break
		}
	}
	if low < 0 {
		return
	}
	if cap(rs.hb) < k-low {
		rs.hb = make([]dporEvent, k-low)
	}
	v := rs.hb[:k-low]
	at := len(v) - 1
	v[at] = dporEvent{thread: t.ID, choice: choice, op: t.Op, idx: rs.cnt[t.ID]}
	for q := k - 1; q >= low; q-- {
		rs.work++
		if int(row[tr[q].Step.Thread]) > q {
			at--
			v[at] = rs.event(tr, q) // q happens before t's operation
			continue
		}
		if q < len(d.nodes) {
			d.plan(q, v[at:])
		}
	}
}

// event returns event c of the trace as a planned event.
func (rs *raceScratch) event(tr []Event, c int) dporEvent {
	e := &tr[c]
	return dporEvent{thread: e.Step.Thread, choice: plannedChoice(&e.Op, e.Step.Choice), op: e.Op, child: rs.child[c], idx: rs.idx[c]}
}

// plannedChoice is the value a planned event carries: a data choice keeps
// its value; the ready case of a select is an index that depends on the
// state, so any.
func plannedChoice(op *syncmodel.Op, choice int) int {
	if choice == schedule.NoChoice || op.Kind == syncmodel.Choose {
		return choice
	}
	return anyChoice
}

// race handles the race of event j with the operation op of thread p at
// position k (an event of the trace, or pending there): it plans, at the
// point before j, the events after j that do not happen after it, then p's
// operation.
func (d *dpor) race(tr []Event, j, k int, x *dporEvent) {
	rs := &d.rs
	p, op := x.thread, &x.op
	if j >= len(d.nodes) {
		return
	}
	// waiting: p was already waiting for this operation at j, so that j
	// (or an event after it that does not happen after it) is what let it
	// go on.
	t, ok := d.pts.at(j, p)
	waiting := ok && !t.enabled && rs.last[p] < j
	tj := tr[j].Step.Thread
	// (A misuse did not do what the operation does: an unlock of an
	// unlocked mutex held nothing that a lock waited for.)
	if j != rs.misuse && syncmodel.MustPrecedeRef(tj, &tr[j].Op, p, op) {
		// j is what let p's operation happen (an unlock and a lock): the
		// race to reverse is with what j undid, the same thread's latest
		// earlier operation on the object (the lock), unless that happens
		// before p's operation anyway.
		if tr[j].Op.Kind == syncmodel.ThreadExit || chanKind(tr[j].Op.Kind) || op.Kind == syncmodel.ChanWake {
			// A channel operation that another completed (a parked
			// send and the receive that took it, or a completion and
			// the wake): the races to reverse are those of the
			// completing operation with its competitors, found
			// directly.
			return
		}
		for a := j - 1; a >= 0; a-- {
			if tr[a].Step.Thread != tj || !syncmodel.DependentRef(tj, &tr[a].Op, p, op) || syncmodel.MustPrecedeRef(tj, &tr[a].Op, p, op) {
				continue
			}
			if rs.before(a, p) {
				return
			}
			d.race(tr, a, k, x)
			return
		}
		return
	}
	v := rs.v[:0]
	rs.work += int64(k - j)
	for c := j + 1; c < k; c++ {
		if int(rs.row(c)[tj]) > j {
			continue // happens after j
		}
		v = append(v, rs.event(tr, c))
	}
	if waiting && len(v) == 0 {
		// Nothing but j could have let p go on: p cannot precede it.
		return
	}
	v = append(v, *x)
	rs.v = v
	d.plan(j, v)
}

// plan inserts v into the wakeup tree of node j, unless an event asleep
// there can start a schedule equivalent to v (it was explored already).
func (d *dpor) plan(j int, v []dporEvent) {
	node := &d.nodes[j]
	for i := range node.sleep {
		if f, ok := d.weakInitial(v, &node.sleep[i]); ok && (f < 0 || v[f].choice == node.sleep[i].choice) {
			return // explored (or planned) already, in an equivalent order
		}
	}
	d.insertWake(&node.wut, v)
}

// weakInitial reports whether the event x (of a thread at the point where v
// would start) can come first in a schedule equivalent to v: its thread's
// first event in v (at index f, returned) depends on nothing before it in
// v, or its thread has no event in v (f = -1) and x is independent of all
// of v. The latter makes the schedule that starts with x one step longer
// than v: under a depth bound it may not reach what v reaches. It is still
// taken while no execution has been cut by the bound: x is in the sleep set
// because every execution starting with x has been explored, none of them
// cut, exactly as in an unbounded search. Once one was cut, only the former
// is. An event that ended its execution (terminal) comes first only in a
// schedule that begins with it: nothing ran after it, so it stands for no
// schedule in which other events follow it.
func (d *dpor) weakInitial(v []dporEvent, x *dporEvent) (f int, ok bool) {
	f = -1
	for i := range v {
		if v[i].thread == x.thread {
			f = i
			break
		}
	}
	d.rs.work += int64(f + 1)
	if x.terminal {
		return f, f == 0
	}
	if f < 0 {
		d.rs.work += int64(len(v))
		if d.cut {
			return -1, false
		}
		xop := d.opRef(x)
		for i := range v {
			if syncmodel.DependentRef(x.thread, xop, v[i].thread, &v[i].op) {
				return -1, false
			}
		}
		return -1, true
	}
	e := &v[f]
	for i := 0; i < f; i++ {
		if v[i].child == e.thread || syncmodel.DependentRef(v[i].thread, &v[i].op, e.thread, &e.op) {
			return f, false
		}
	}
	return f, true
}

// insertWake inserts the schedule v into the wakeup forest f: it follows
// the planned events that can start a schedule equivalent to what is left
// of v; if it reaches a leaf, v is covered; else the rest of v becomes a
// new branch, tried after the others.
//
// The event each level matches is taken out of what is left of v by
// moving the events before it one place on, in a scratch copy made the
// first time that is needed: a level costs the events before the match
// (none, when the planned event is v's first, as it mostly is), where
// copying the rest of v at every level made a plan as long as a deep
// execution cost its length squared.
func (d *dpor) insertWake(f *[]*wakeNode, v []dporEvent) {
	own := false // v is the scratch copy
	for len(v) > 0 {
		d.rs.work++
		var next *wakeNode
		at := -1
		for _, c := range *f {
			if i, ok := d.weakInitial(v, &c.ev); ok && (i < 0 || v[i].choice == c.ev.choice) {
				next, at = c, i
				break
			}
		}
		if next == nil {
			*f = append(*f, chain(v))
			d.rs.work += int64(len(v))
			return
		}
		if len(next.kids) == 0 {
			return
		}
		if at > 0 && !own {
			d.rs.wv = append(d.rs.wv[:0], v...)
			v, own = d.rs.wv, true
			d.rs.work += int64(len(v))
		}
		if at >= 0 {
			copy(v[1:at+1], v[:at])
			v = v[1:]
			d.rs.work += int64(at)
		}
		f = &next.kids
	}
}

// chain returns v as a path of new nodes.
func chain(v []dporEvent) *wakeNode {
	root := &wakeNode{ev: v[0]}
	n := root
	for i := 1; i < len(v); i++ {
		c := &wakeNode{ev: v[i]}
		n.kids = []*wakeNode{c}
		n = c
	}
	return root
}

// finalThreads returns the threads pending where the execution stopped:
// what Explore reported, or else the last point's threads but the one that
// made the last step (whose next operation is unknown).
func (d *dpor) finalThreads(r *Report) []Thread {
	if len(r.Final) > 0 {
		return r.Final
	}
	n := len(r.Trace)
	if n == 0 || n-1 >= len(d.nodes) {
		return nil
	}
	last := r.Trace[n-1].Step.Thread
	fs := d.rs.final[:0]
	d.pts.threads(n-1, func(id int, t nodeThread) {
		if id != last {
			op := d.opOf(&dporEvent{thread: id, idx: d.count(id)})
			fs = append(fs, Thread{ID: id, Op: op, Enabled: t.enabled, Alternatives: int(t.choices)})
		}
	})
	d.rs.final = fs
	return fs
}

func join(dst, src []int32) {
	for i, x := range src {
		if x > dst[i] {
			dst[i] = x
		}
	}
}

func grow(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

func fill(s []int, n, x int) []int {
	if cap(s) < n {
		s = make([]int, n)
	}
	s = s[:n]
	for i := range s {
		s[i] = x
	}
	return s
}

func chanKind(k syncmodel.Kind) bool { return k >= syncmodel.ChanMake && k <= syncmodel.ChanWake }
