package syncmodel

import (
	"fmt"
	"slices"
)

// Results of WGWait.
const (
	// WaitReturned: the counter was zero; Wait returns.
	WaitReturned = 0
	// WaitParked: the thread parked; it must report WGWake next.
	WaitParked = 1
)

// waitGroup is a Go sync.WaitGroup.
type waitGroup struct {
	count   int64
	waiters []int // parked threads not yet released, in arrival order
}

// wgState is the world's wait groups, by object.
type wgState struct {
	wgs map[uint64]*waitGroup
}

// wgPrim is the primitive of Go's sync.WaitGroup. A Wait is disabled until
// the counter is zero (it does not park: see WGWait); a counter made
// negative is a misuse.
type wgPrim struct{ basePrim }

func (*wgPrim) kinds() []kindSpec {
	return []kindSpec{
		{kind: WGAdd, stateEff: true, precedes: true},
		{kind: WGWait, mayWait: true},
		{kind: WGWake, mayWait: true},
	}
}

func (*wgPrim) check(_ *World, tid int, _ *thread, op Op) error {
	if op.Kind == WGWake {
		return fmt.Errorf("syncmodel: thread %d: %s without its first half", tid, op)
	}
	return nil
}

func (*wgPrim) enabled(w *World, tid int, op *Op) bool {
	switch op.Kind {
	case WGWait:
		return w.wgZero(op.Obj)
	case WGWake:
		return w.threads[tid-1].woken
	}
	return true
}

func (*wgPrim) exec(w *World, tid int, op *Op, _ int) (Result, string, error) {
	switch op.Kind {
	case WGAdd:
		return done(w.wgAdd(tid, *op))
	case WGWait:
		if msg := w.wgConcurrent(tid, *op); msg != "" {
			return done(0, msg)
		}
		return done(w.wgWait(tid, *op), "")
	}
	return done(w.wgWake(tid, *op), "")
}

func (*wgPrim) waitFor(w *World, _ int, op *Op) Wait { return w.wgWaitFor(op.Obj) }

// effect: the counter an Add finds (Eff.Counter).
func (*wgPrim) effect(w *World, _ int, op *Op) Effect {
	eff := Effect{Known: true}
	if op.Kind == WGAdd {
		if g := w.wgs[op.Obj]; g != nil {
			eff.Counter = g.count
		}
	}
	return eff
}

// dependent: two Adds as wgAddsDependent says, but a decrement followed by
// an increment (ordered), which always commute: moving the increment
// first only raises the counter the decrement finds; two Waits are
// independent; the rest on a common group is dependent.
func (*wgPrim) dependent(_ int, a *Op, _ int, b *Op, ordered bool) bool {
	switch {
	case a.Kind == WGAdd && b.Kind == WGAdd:
		if ordered && a.Arg < 0 && b.Arg > 0 {
			return false
		}
		return a.Obj == b.Obj && wgAddsDependent(a, b)
	case a.Kind == WGWait && b.Kind == WGWait:
		return false
	}
	return sharesObject(a, b)
}

// wgAddsDependent decides two Adds on one wait group. Increments commute,
// and so do decrements that the counter covers together: the counter
// moves monotonically to the same value whatever their order, and a Wait,
// which depends on every Add, is enabled only at zero. Two decrements that
// the counter does not cover are dependent: the one that comes second is
// the misuse. (An Add that makes the counter negative is a misuse, which ends
// the execution and which the search orders after the group's history.)
// An increment and a decrement commute when the counter the decrement
// found (Eff.Counter) covers both: then it stays non-negative in either
// order. In the order decrement first the test is stricter than needed,
// which costs executions, never bugs.
func wgAddsDependent(a, b *Op) bool {
	if a.Arg < 0 && b.Arg < 0 {
		// Two decrements commute unless together they take the counter
		// below zero: then whichever comes second is the misuse. (The
		// counter before both is the larger of the two seen: one may be
		// annotated after the other ran.)
		return !a.Eff.Known || !b.Eff.Known || max(a.Eff.Counter, b.Eff.Counter)+a.Arg+b.Arg < 0
	}
	if a.Arg < 0 == (b.Arg < 0) {
		return false
	}
	if b.Arg < 0 {
		a, b = b, a
	}
	return !a.Eff.Known || a.Eff.Counter+a.Arg-b.Arg < 0
}

// mustPrecede: a Done (an Add with a negative delta), and a Wait of its
// group (the counter is above zero until then).
func (*wgPrim) mustPrecede(_ int, a *Op, _ int, b *Op) bool {
	return a.Kind == WGAdd && b.Kind == WGWait && b.Obj == a.Obj && a.Arg < 0
}

func (*wgPrim) fingerprint(w *World, f fp) fp {
	for _, k := range sortedKeys(w.wgs) {
		if g := w.wgs[k]; g.count != 0 || len(g.waiters) > 0 {
			f.u(k)
			f.i(g.count)
			f.ints(g.waiters)
		}
	}
	return f
}

func (*wgPrim) clone(dst, src *World) { dst.wgs = cloneMap(src.wgs, (*waitGroup).clone) }

func (*wgPrim) reset(w *World) { w.wgState = wgState{wgs: keepMap(w.wgs)} }

func (g *waitGroup) clone() *waitGroup {
	return &waitGroup{count: g.count, waiters: slices.Clone(g.waiters)}
}

func (w *World) waitGroup(obj uint64) *waitGroup {
	g := w.wgs[obj]
	if g == nil {
		g = &waitGroup{}
		put(&w.wgs, obj, g)
	}
	return g
}

// wgAdd adds op.Arg to the counter of thread tid's wait group; reaching
// zero releases the waiters. It returns GoPanics when the counter goes
// below zero (Go stores it, then panics), and a misuse when the Add and a
// Wait that nothing orders meet the counter at zero (wgConcurrent).
func (w *World) wgAdd(tid int, op Op) (int64, string) {
	var count int64
	if g := w.wgs[op.Obj]; g != nil {
		count = g.count
	}
	if count+op.Arg >= 0 {
		if msg := w.wgConcurrent(tid, op); msg != "" {
			return 0, msg
		}
	}
	g := w.waitGroup(op.Obj)
	n := g.count + op.Arg
	g.count = n
	if n < 0 {
		return GoPanics, ""
	}
	if n == 0 {
		for _, t := range g.waiters {
			th := &w.threads[t-1]
			th.woken, th.wakeCode = true, 0
		}
		g.waiters = nil
	}
	return 0, ""
}

// wgConcurrent returns the misuse of an Add with a positive delta that
// starts from zero and a Wait of the same group that nothing orders: op,
// thread tid's Add or Wait, finds the counter at zero while another thread
// is about to perform the other (its pending operation). Both can then run
// first, so the Add does not happen before the Wait, as sync.WaitGroup
// requires ("calls with a positive delta that occur when the counter is
// zero must happen before a Wait"; a group reused must see its new Adds
// happen after the previous Waits returned). Go's race detector reports
// it in the schedule in which the Add comes first and the Wait blocks; Go
// itself panics when the Add lands while a released Wait has not returned
// yet. The search runs the two in both orders (they are dependent), and in
// the order it reverses one of them is pending while the other runs, so
// the misuse is found from either; it is placed at the Add in both
// (Misuse.At). "" if op is not such an Add or Wait.
func (w *World) wgConcurrent(tid int, op Op) string {
	if op.Kind == WGAdd && op.Arg <= 0 || !w.wgZero(op.Obj) {
		return ""
	}
	for i := range w.threads {
		th := &w.threads[i]
		if i+1 == tid || th.finished || !th.hasPending || th.pending.Obj != op.Obj {
			continue
		}
		p := &th.pending
		adder, add, waiter := tid, op.Arg, i+1
		switch {
		case op.Kind == WGAdd && p.Kind == WGWait:
		case op.Kind == WGWait && p.Kind == WGAdd && p.Arg > 0:
			adder, add, waiter = i+1, p.Arg, tid
			w.misuseAt = adder
		default:
			continue
		}
		return fmt.Sprintf("WaitGroup %#x: thread %d's Add(%d) with the counter at zero and thread %d's Wait are not ordered: "+
			"an Add from zero must happen before the Wait (Go's race detector reports the two as a data race; "+
			"a group reused before its Wait returned panics: WaitGroup is reused before previous Wait has returned)",
			op.Obj, adder, add, waiter)
	}
	return ""
}

// wgZero reports whether the counter of wait group obj is zero: a Wait
// is enabled then, and waits (disabled) until then. It never parks, so
// that the moment a waiter arrived is no event of its own: a Done that
// leaves the counter above zero commutes with the Wait.
func (w *World) wgZero(obj uint64) bool {
	g := w.wgs[obj]
	return g == nil || g.count == 0
}

func (w *World) wgWait(tid int, op Op) int64 {
	g := w.waitGroup(op.Obj)
	if g.count == 0 {
		return WaitReturned
	}
	g.waiters = append(g.waiters, tid)
	th := &w.threads[tid-1]
	th.next, th.nextObj, th.parkedOp = WGWake, op.Obj, WGWait
	th.woken, th.wakeCode, th.wakeClosed = false, 0, false
	return WaitParked
}

// wgWake ends a parked Wait. Go panics if the group was reused (its counter
// raised again) before the released waiter returned: GoPanics.
func (w *World) wgWake(tid int, op Op) int64 {
	w.threads[tid-1].clearNext()
	if g := w.wgs[op.Obj]; g != nil && g.count != 0 {
		return GoPanics
	}
	return 0
}

func (w *World) wgWaitFor(obj uint64) Wait {
	var count int64
	if g := w.wgs[obj]; g != nil {
		count = g.count
	}
	return Wait{Obj: obj, What: "WaitGroup", Detail: fmt.Sprintf("counter %d", count)}
}
