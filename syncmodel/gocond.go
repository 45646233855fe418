package syncmodel

// Go condition variables share the cond records (and CondSignal and
// CondBroadcast) with the C ones, but a Go wait does not know its Locker: it
// registers (GoCondWait), the runtime unlocks the Locker through its own
// operation, waits to be signalled (GoCondWake) and locks the Locker again.
// Registering before unlocking is what makes a Signal between the unlock
// and the wait count, as in Go's notify lists.
//
// When the Locker is a Go mutex the model knows (Obj2), the registration
// and the unlock are one event, and so are the wake and the relock, as in
// a C wait. Nothing is lost: between the registration and the unlock the
// waiter holds the mutex, so what another goroutine does there either
// leaves the mutex alone (and commutes with the unlock) or fails as it
// would after it; and a signalled waiter only leaves the waiters'
// list, where no later signal looks, so its wake can always wait until the
// mutex is free.

func (w *World) goCondWait(tid int, op Op) string {
	if op.Obj2 != 0 {
		if msg := w.goMutexUnlock(Op{Obj: op.Obj2}); msg != "" {
			return msg
		}
	}
	c := w.cond(op.Obj)
	c.waiters = append(c.waiters, condWaiter{tid: tid})
	th := &w.threads[tid-1]
	th.inGoCond, th.goCondObj = true, op.Obj
	return ""
}

func (w *World) goCondWakeEnabled(tid int, op Op) bool {
	return w.signalled(tid, op.Obj) && (op.Obj2 == 0 || w.goMutexEnabled(Op{Obj: op.Obj2}))
}

func (w *World) goCondWake(tid int, op Op) {
	c := w.conds[op.Obj]
	for i, x := range c.waiters {
		if x.tid == tid {
			c.waiters = append(c.waiters[:i], c.waiters[i+1:]...)
			break
		}
	}
	th := &w.threads[tid-1]
	th.inGoCond, th.goCondObj = false, 0
	if op.Obj2 != 0 {
		w.goMutex(op.Obj2).holder = tid
	}
}

// goCondWaitFor explains why a Go condition wait cannot wake.
func (w *World) goCondWaitFor(tid int, op Op) Wait {
	if op.Obj2 != 0 && w.signalled(tid, op.Obj) {
		wt := w.goMutexWait(Op{Obj: op.Obj2})
		wt.Obj2 = op.Obj
		return wt
	}
	return Wait{Obj: op.Obj, Obj2: op.Obj2, What: "condition variable", Detail: "not signalled"}
}
