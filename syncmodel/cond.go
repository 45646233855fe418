package syncmodel

import (
	"fmt"
	"slices"
)

// cond is a condition variable.
type cond struct {
	// mutex is the mutex the current waiters wait with; meaningful only
	// while there are waiters.
	mutex   uint64
	waiters []condWaiter // in arrival order
}

type condWaiter struct {
	tid       int
	signalled bool
	by        int // the thread whose signal or broadcast signalled it
}

// waiting returns "thread N waits" or "threads N, M wait".
func (c *cond) waiting() string {
	ids := make([]int, len(c.waiters))
	for i, x := range c.waiters {
		ids[i] = x.tid
	}
	slices.Sort(ids)
	return threadsVerb(ids, "waits", "wait")
}

func (w *World) cond(obj uint64) *cond {
	c := w.conds[obj]
	if c == nil {
		c = &cond{}
		put(&w.conds, obj, c)
	}
	return c
}

// signalled reports whether tid waits on condition variable obj and has been
// signalled.
// signaller returns the thread that signalled thread tid waiting on obj,
// or 0 if it is not signalled.
func (w *World) signaller(tid int, obj uint64) int {
	if c := w.conds[obj]; c != nil {
		for _, x := range c.waiters {
			if x.tid == tid && x.signalled {
				return x.by
			}
		}
	}
	return 0
}

func (w *World) signalled(tid int, obj uint64) bool {
	if c := w.conds[obj]; c != nil {
		for _, x := range c.waiters {
			if x.tid == tid {
				return x.signalled
			}
		}
	}
	return false
}

// callName returns the user-level function of op, or a description of its
// kind when the runtime did not say.
func callName(op Op, kind string) string {
	if op.API != APINone {
		return op.API.String()
	}
	return kind
}

func (w *World) condInit(op Op) string {
	if c := w.conds[op.Obj]; c != nil && len(c.waiters) > 0 {
		return fmt.Sprintf("init of condition variable %#x while %s on it", op.Obj, c.waiting())
	}
	put(&w.conds, op.Obj, &cond{})
	return ""
}

func (w *World) condWait(tid int, op Op) string {
	if msg := w.condWaitMisuse(tid, op); msg != "" {
		return msg
	}
	m := w.mutexes[op.Obj2]
	c := w.cond(op.Obj)
	th := &w.threads[tid-1]
	th.inCond, th.condObj, th.condMutex = true, op.Obj, op.Obj2
	th.condCount, th.condType = m.count, m.typ
	m.owner, m.count = 0, 0
	c.mutex = op.Obj2
	c.waiters = append(c.waiters, condWaiter{tid: tid})
	return ""
}

func (w *World) reacquireEnabled(tid int, op Op) bool {
	if op.Arg != 1 && !w.signalled(tid, op.Obj) {
		return false
	}
	m := w.mutexes[op.Obj2]
	return m == nil || m.owner == 0
}

// SetSpuriousWakeups lets a condition wait return without a signal, as
// POSIX allows, the first time each thread waits in an execution: the
// thread's CondWait is then a choice (World.Choices) between waiting (0)
// and returning at once (1), without releasing its mutex, with Result.Code
// SpuriousReturn and Result.Spurious set; the runtime returns 0 to the
// program and reports no CondReacquire. Returning at once is enough to
// show a wait guarded by if instead of while (the predicate is still
// false), and a thread that then waits again on the same condition and
// mutex is where it would have been without it (the checker cuts such an
// execution: its continuation is the waiting branch's). Once per thread
// keeps every wait loop finite. Go's sync.Cond has no spurious wake-ups.
func (w *World) SetSpuriousWakeups(on bool) { w.spurious = on }

func (w *World) canWakeSpuriously(tid int) bool {
	return w.spurious && !w.threads[tid-1].spuriousUsed
}

// condWaitMisuse returns why thread tid cannot wait on op's condition
// with op's mutex, "" if it can.
func (w *World) condWaitMisuse(tid int, op Op) string {
	m := w.mutexes[op.Obj2]
	if m == nil || m.owner != tid {
		msg := fmt.Sprintf("%s on condition variable %#x without holding its mutex %#x",
			callName(op, "condition wait"), op.Obj, op.Obj2)
		if m != nil && m.owner != 0 {
			msg += " (held by " + w.threadName(m.owner) + ")"
		}
		return msg
	}
	if c := w.conds[op.Obj]; c != nil && len(c.waiters) > 0 && c.mutex != op.Obj2 {
		return fmt.Sprintf("wait on condition variable %#x with mutex %#x while other threads wait with mutex %#x",
			op.Obj, op.Obj2, c.mutex)
	}
	return ""
}

func (w *World) condReacquire(tid int, op Op) int64 {
	th := &w.threads[tid-1]
	m := getMutex(&w.mutexes, op.Obj2, th.condType)
	m.owner, m.count = tid, max(th.condCount, 1)
	th.inCond, th.condObj, th.condMutex, th.condCount, th.condType = false, 0, 0, 0, 0
	code := int64(ETIMEDOUT)
	if c := w.conds[op.Obj]; c != nil {
		for i, x := range c.waiters {
			if x.tid == tid {
				if x.signalled {
					code = OK
				}
				c.waiters = append(c.waiters[:i], c.waiters[i+1:]...)
				break
			}
		}
		if len(c.waiters) == 0 {
			c.mutex = 0
		}
	}
	return code
}

func (w *World) condSignal(tid int, op Op, all bool) {
	c := w.conds[op.Obj]
	if c == nil {
		return
	}
	for i := range c.waiters {
		if !c.waiters[i].signalled {
			c.waiters[i].signalled, c.waiters[i].by = true, tid
			if !all {
				return
			}
		}
	}
}

func (w *World) condDestroy(op Op) string {
	if c := w.conds[op.Obj]; c != nil && len(c.waiters) > 0 {
		return fmt.Sprintf("destroy of condition variable %#x while %s on it", op.Obj, c.waiting())
	}
	delete(w.conds, op.Obj)
	return ""
}
