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

// wgAdd adds op.Arg to the counter; reaching zero releases the waiters.
func (w *World) wgAdd(op Op) string {
	var count int64
	if g := w.wgs[op.Obj]; g != nil {
		count = g.count
	}
	n := count + op.Arg
	if n < 0 {
		return fmt.Sprintf("negative WaitGroup counter: Add(%d) on WaitGroup %#x with counter %d", op.Arg, op.Obj, count)
	}
	g := w.waitGroup(op.Obj)
	g.count = n
	if n == 0 {
		for _, t := range g.waiters {
			th := &w.threads[t-1]
			th.woken, th.wakeCode = true, 0
		}
		g.waiters = nil
	}
	return ""
}

// wgZero reports whether the counter of wait group op.Obj is zero: a Wait
// is enabled then, and waits (disabled) until then. It never parks, so
// that the moment a waiter arrived is no event of its own: a Done that
// leaves the counter above zero commutes with the Wait.
func (w *World) wgZero(op Op) bool {
	g := w.wgs[op.Obj]
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
// raised again) before the released waiter returned.
func (w *World) wgWake(tid int, op Op) string {
	if g := w.wgs[op.Obj]; g != nil && g.count != 0 {
		return fmt.Sprintf("WaitGroup %#x is reused before the previous Wait has returned (counter %d)", op.Obj, g.count)
	}
	w.threads[tid-1].clearNext()
	return ""
}

func (w *World) wgWaitFor(op Op) Wait {
	var count int64
	if g := w.wgs[op.Obj]; g != nil {
		count = g.count
	}
	return Wait{Obj: op.Obj, What: "WaitGroup", Detail: fmt.Sprintf("counter %d", count)}
}
