package executor

import (
	"errors"
	"fmt"
	"slices"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// The thread list (Execution.Threads) is kept from one scheduling point to
// the next: after a step, only the threads whose status the step may have
// changed are looked at again (listThreads), found in the list, which is
// ordered by id, by a binary search. Which threads those are, the model
// says (syncmodel.StatusDeps, syncmodel.StepTouches): the thread that ran
// or reported, the threads whose pending operation uses an object the step
// or the report used, the joiners of a thread that finished or was
// joined, the threads a thread's creation concerns, the threads whose
// spin-loop wait began or ended (spin.go), and at every point the
// threads whose status any step may change (time, channels, synctest
// bubbles). A step thus costs in proportion to the threads it concerns,
// not to all threads. With few threads a pass over all of them costs less
// than the index's upkeep: below incrementalFrom live threads the list is
// brought up to date by a pass (passThreads) and the index is off.
// Options.CheckThreads compares the list with one made afresh after every
// step, and turns the index on at any number of threads, so that what
// checks the list checks the index.

// incrementalFrom is the number of live threads from which the index is on
// (BenchmarkCheckerManyThreads: below it a pass costs less).
const incrementalFrom = 8

// statusWatch is what the index keeps of one thread: what the status of
// its pending operation depends on (syncmodel.StatusDeps), as registered.
type statusWatch struct {
	objs   []uint64
	thread int
	global bool
	listed bool // registered in the index
}

// How much of a thread listThreads looks at again.
const (
	lookStatus = 1 // its status: its enabledness and choices
	lookAll    = 2 // its pending operation too, which changed
)

// threadIndex finds the threads whose status a step may have changed.
type threadIndex struct {
	watch []statusWatch // by thread id
	// objIdx numbers the objects (objLists[objIdx[obj]] are the threads
	// whose status depends on obj); lastObj and lastIdx are the last one
	// looked up (a step and the report after it mostly name one object).
	objIdx   map[uint64]int32
	objLists [][]int32
	lastObj  uint64
	lastIdx  int32     // -1: none
	byThread [][]int32 // thread u: the threads whose status depends on u
	globals  []int32   // the threads whose status any step may change
	// dirty are the threads to look at again at the next point, each
	// once, and how much (look, by thread id).
	dirty []int32
	look  []uint8
	// seen is the number of threads at the last point: a thread created
	// since is looked at, and so is what waits for it.
	seen    int
	scratch []uint64
	// on: the index is kept (incrementalFrom); when it is off, dirty and
	// look still say which threads' pending operations changed.
	on bool
}

// reset empties the index for a new execution, keeping its room.
func (x *threadIndex) reset() {
	for i := range x.watch {
		x.watch[i].objs = x.watch[i].objs[:0]
		x.watch[i].thread, x.watch[i].global, x.watch[i].listed = 0, false, false
	}
	clear(x.objIdx)
	for i := range x.objLists {
		x.objLists[i] = x.objLists[i][:0]
	}
	x.objLists, x.lastIdx = x.objLists[:0], -1
	for i := range x.byThread {
		x.byThread[i] = x.byThread[i][:0]
	}
	clear(x.look)
	x.globals, x.dirty, x.seen, x.on = x.globals[:0], x.dirty[:0], 0, false
}

// mark notes that thread tid is to be looked at again, at least as much
// as look says.
func (x *threadIndex) mark(tid int, look uint8) {
	for tid >= len(x.look) {
		x.look = append(x.look, 0)
	}
	if x.look[tid] == 0 {
		x.dirty = append(x.dirty, int32(tid))
	}
	x.look[tid] = max(x.look[tid], look)
}

// objList returns the number of object obj's list of threads, -1 if it
// has none and make is not set.
func (x *threadIndex) objList(obj uint64, make bool) int32 {
	if x.lastIdx >= 0 && x.lastObj == obj {
		return x.lastIdx
	}
	i, ok := x.objIdx[obj]
	if !ok {
		if !make {
			return -1
		}
		if x.objIdx == nil {
			x.objIdx = map[uint64]int32{}
		}
		i = int32(len(x.objLists))
		x.objIdx[obj] = i
		if len(x.objLists) < cap(x.objLists) {
			x.objLists = x.objLists[:i+1]
		} else {
			x.objLists = append(x.objLists, nil)
		}
	}
	x.lastObj, x.lastIdx = obj, i
	return i
}

// touch notes that the threads whose status depends on one of objects
// objs or on thread u (0: none) are to be looked at again.
func (x *threadIndex) touch(objs []uint64, u int) {
	if !x.on {
		return
	}
	for _, o := range objs {
		if i := x.objList(o, false); i >= 0 {
			for _, t := range x.objLists[i] {
				x.mark(int(t), lookStatus)
			}
		}
	}
	if u > 0 && u < len(x.byThread) {
		for _, t := range x.byThread[u] {
			x.mark(int(t), lookStatus)
		}
	}
}

// touchOp notes the threads whose status thread tid's operation op, run
// or reported, may change (syncmodel.StepTouches).
func (x *threadIndex) touchOp(tid int, op *syncmodel.Op) {
	if !x.on {
		return
	}
	objs, u := syncmodel.StepTouches(x.scratch[:0], tid, op)
	x.scratch = objs
	x.touch(objs, u)
}

// touchWatched notes the threads whose status may depend on what thread
// tid's pending operation, as last registered, was.
func (x *threadIndex) touchWatched(tid int) {
	if tid < len(x.watch) && x.watch[tid].listed {
		w := &x.watch[tid]
		x.touch(w.objs, w.thread)
	}
}

// register records what the status of thread tid's pending operation op
// depends on, replacing what it depended on before.
func (x *threadIndex) register(tid int, op *syncmodel.Op) {
	objs, u, g := syncmodel.StatusDeps(x.scratch[:0], op)
	x.scratch = objs
	for tid >= len(x.watch) {
		x.watch = append(x.watch, statusWatch{})
	}
	w := &x.watch[tid]
	if w.listed && w.global == g && w.thread == u && slices.Equal(w.objs, objs) {
		return
	}
	x.unregister(tid)
	w.listed, w.global, w.thread = true, g, u
	w.objs = append(w.objs[:0], objs...)
	for _, o := range objs {
		i := x.objList(o, true)
		x.objLists[i] = append(x.objLists[i], int32(tid))
	}
	if u > 0 {
		for u >= len(x.byThread) {
			x.byThread = append(x.byThread, nil)
		}
		x.byThread[u] = append(x.byThread[u], int32(tid))
	}
	if g {
		x.globals = append(x.globals, int32(tid))
	}
}

// unregister forgets what thread tid's status depended on.
func (x *threadIndex) unregister(tid int) {
	if tid >= len(x.watch) || !x.watch[tid].listed {
		return
	}
	w := &x.watch[tid]
	for _, o := range w.objs {
		i := x.objList(o, true)
		x.objLists[i] = without(x.objLists[i], tid)
	}
	if w.thread > 0 {
		x.byThread[w.thread] = without(x.byThread[w.thread], tid)
	}
	if w.global {
		x.globals = without(x.globals, tid)
	}
	w.objs = w.objs[:0]
	w.thread, w.global, w.listed = 0, false, false
}

// without removes one tid from ts (whose order does not matter).
func without(ts []int32, tid int) []int32 {
	for i, t := range ts {
		if int(t) == tid {
			ts[i] = ts[len(ts)-1]
			return ts[:len(ts)-1]
		}
	}
	return ts
}

// listThreads brings e.threads, the live threads at the new scheduling
// point, up to date: it looks again at the threads the steps and reports
// since the last point may have changed (see threadIndex).
func (e *Execution) listThreads() {
	x := &e.idx
	n := e.w.NumThreads()
	if _, exited := e.w.Exited(); exited {
		// Nothing is enabled any more.
		x.on = false
		e.threads = e.threads[:0]
		e.fillThreads(1, n)
		e.passed()
		return
	}
	from := incrementalFrom
	if e.c.opts.CheckThreads {
		from = 1
	}
	if e.c.incrementalFrom > 0 {
		from = e.c.incrementalFrom
	}
	if len(e.threads)+n-x.seen < from {
		x.on = false
		e.passThreads()
		return
	}
	if !x.on {
		// Turned on: everything is looked at and registered anew.
		x.reset()
		x.on = true
		for t := 1; t <= n; t++ {
			x.mark(t, lookAll)
		}
	}
	for t := x.seen + 1; t <= n; t++ {
		x.mark(t, lookAll)
		x.touch(nil, t)
	}
	x.seen = n
	for _, g := range x.globals {
		x.mark(int(g), lookAll)
	}
	d := x.dirty
	if len(d) > 1 {
		slices.Sort(d)
	}
	for _, tid := range d {
		e.relist(int(tid), x.look[tid])
		x.look[tid] = 0
	}
	x.dirty = d[:0]
}

// passThreads brings e.threads up to date in one pass over the threads.
// Entries are filled in place, an operation being too big to copy around
// at every step, and only the threads whose pending operation changed
// since the last point or whose annotation depends on the state are
// looked at again in full; the others only get their enabledness and
// choices anew.
func (e *Execution) passThreads() {
	ts := e.threads
	n := e.w.NumThreads()
	if n == e.idx.seen {
		e.passListed()
		return
	}
	k := 0 // entries kept or made, at the front of ts
	r := 0 // the next entry of the last point to look at
	for tid := 1; tid <= n; tid++ {
		for r < len(ts) && ts[r].ID < tid {
			r++ // a thread that finished
		}
		old := r < len(ts) && ts[r].ID == tid
		if !old {
			if live, _, _ := e.w.Status(tid); !live {
				continue // finished before the last point
			}
		}
		if !old && k == r && r < len(ts) {
			// No room before the entries still to look at (a live
			// thread without an entry can only be a new one, after
			// them): start the list afresh.
			e.threads = ts[:0]
			e.fillThreads(1, n)
			e.passed()
			return
		}
		if old {
			if k != r {
				ts[k] = ts[r]
			}
			r++
			if !e.idx.changed(tid) && !syncmodel.StateAnnotated(ts[k].Op.Kind) {
				live, en, alts := e.w.Status(tid)
				if live {
					ts[k].Enabled, ts[k].Alternatives = en, alts
					ts[k].Spinning = !en && e.spinning(tid)
					k++
				}
				continue
			}
		} else if k == len(ts) {
			ts = append(ts, search.Thread{})
			r = len(ts)
		}
		t := &ts[k]
		t.ID = tid
		live, en, alts := e.w.Inspect(tid, &t.Op)
		if !live {
			continue
		}
		t.Enabled, t.Alternatives = en, alts
		t.Spinning = !en && e.spinning(tid)
		k++
	}
	e.threads = ts[:k]
	e.passed()
}

// passListed is passThreads when no thread was created since the last
// point: a live thread is then one listed there, and only those are
// looked at (a thread that finished is dropped).
func (e *Execution) passListed() {
	ts := e.threads
	k := 0
	for r := range ts {
		if k != r {
			ts[k] = ts[r]
		}
		t := &ts[k]
		tid := t.ID
		var live, en bool
		var alts int
		if e.idx.changed(tid) || syncmodel.StateAnnotated(t.Op.Kind) {
			live, en, alts = e.w.Inspect(tid, &t.Op)
		} else {
			live, en, alts = e.w.Status(tid)
		}
		if !live {
			continue
		}
		t.Enabled, t.Alternatives = en, alts
		t.Spinning = !en && e.spinning(tid)
		k++
	}
	e.threads = ts[:k]
	e.passed()
}

// passed forgets, after a pass, which threads changed.
func (e *Execution) passed() {
	x := &e.idx
	for _, tid := range x.dirty {
		x.look[tid] = 0
	}
	x.dirty, x.seen = x.dirty[:0], e.w.NumThreads()
}

// changed reports whether thread tid's pending operation changed since
// the last point.
func (x *threadIndex) changed(tid int) bool { return tid < len(x.look) && x.look[tid] == lookAll }

// relist looks again at thread tid (look: how much), whose entry in
// e.threads is brought up to date, made or removed; what its status
// depends on is registered anew if its operation changed.
func (e *Execution) relist(tid int, look uint8) {
	ts := e.threads
	// The entry of tid, or where it goes.
	i, j := 0, len(ts)
	for i < j {
		h := int(uint(i+j) >> 1)
		if ts[h].ID < tid {
			i = h + 1
		} else {
			j = h
		}
	}
	found := i < len(ts) && ts[i].ID == tid
	if found && look == lookStatus && !syncmodel.StateAnnotated(ts[i].Op.Kind) {
		t := &ts[i]
		live, en, alts := e.w.Status(tid)
		if live {
			t.Enabled, t.Alternatives = en, alts
			t.Spinning = !en && e.spinning(tid)
			return
		}
	}
	if !found {
		if i == len(ts) {
			ts = append(ts, search.Thread{ID: tid})
		} else {
			ts = slices.Insert(ts, i, search.Thread{ID: tid})
		}
	}
	t := &ts[i]
	live, en, alts := e.w.Inspect(tid, &t.Op)
	if !live {
		e.threads = slices.Delete(ts, i, i+1)
		e.idx.unregister(tid)
		return
	}
	t.Enabled, t.Alternatives = en, alts
	t.Spinning = !en && e.spinning(tid)
	e.threads = ts
	e.idx.register(tid, &t.Op)
}

// fillThreads appends to e.threads the live threads from..to, looked at
// in full (the list made afresh, which the kept one must equal).
func (e *Execution) fillThreads(from, to int) {
	for tid := from; tid <= to; tid++ {
		e.threads = append(e.threads, search.Thread{ID: tid})
		t := &e.threads[len(e.threads)-1]
		live, en, alts := e.w.Inspect(tid, &t.Op)
		if !live {
			e.threads = e.threads[:len(e.threads)-1]
			continue
		}
		t.Enabled, t.Alternatives = en, alts
		t.Spinning = !en && e.spinning(tid)
	}
}

// change notes that thread tid's pending operation changed (it ran, or
// reported a new one, or its wait for a write began or ended) since the
// last scheduling point.
func (e *Execution) change(tid int) { e.idx.mark(tid, lookAll) }

// ErrThreadList is wrapped by the error of a step after which the thread
// list kept up to date differs from the one made afresh (Options.CheckThreads).
var ErrThreadList = errors.New("the thread list kept from step to step differs from the model's")

// checkThreads compares e.threads, as listThreads left it, with the list
// a full pass over the model makes (fillThreads' look at every thread),
// made in e.checkBuf.
func (e *Execution) checkThreads() error {
	n := e.w.NumThreads()
	full := e.checkBuf[:0]
	for tid := 1; tid <= n; tid++ {
		full = append(full, search.Thread{ID: tid})
		t := &full[len(full)-1]
		live, en, alts := e.w.Inspect(tid, &t.Op)
		if !live {
			full = full[:len(full)-1]
			continue
		}
		t.Enabled, t.Alternatives = en, alts
		t.Spinning = !en && e.spinning(tid)
	}
	e.checkBuf = full
	step := len(e.trace)
	if len(full) != len(e.threads) {
		return fmt.Errorf("after step %d: %w: %d live threads listed, %d in the model", step, ErrThreadList, len(e.threads), len(full))
	}
	for i := range full {
		got, want := &e.threads[i], &full[i]
		if got.ID != want.ID || got.Enabled != want.Enabled || got.Spinning != want.Spinning ||
			got.Alternatives != want.Alternatives || !sameOp(&got.Op, &want.Op) {
			return fmt.Errorf("after step %d: %w: thread %d listed as %+v, the model has %+v", step, ErrThreadList, want.ID, *got, *want)
		}
	}
	return nil
}

// sameOp reports whether a and b are the same operation with the same
// annotation, field by field (TestSameOpFields keeps the list whole).
func sameOp(a, b *syncmodel.Op) bool {
	x, y := &a.Eff, &b.Eff
	return a.Kind == b.Kind && a.API == b.API && a.Obj == b.Obj && a.Obj2 == b.Obj2 && a.Arg == b.Arg &&
		slices.Equal(a.Cases, b.Cases) &&
		x.Known == y.Known && x.Partner == y.Partner && slices.Equal(x.Links, y.Links) && slices.Equal(x.Ends, y.Ends) &&
		x.Mid == y.Mid && x.Parks == y.Parks && x.Counter == y.Counter && x.Own == y.Own && x.Writer == y.Writer &&
		slices.Equal(x.Await, y.Await)
}
