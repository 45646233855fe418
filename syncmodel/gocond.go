package syncmodel

// Go condition variables share the cond records (and CondSignal and
// CondBroadcast) with the C ones, but a Go wait does not know its Locker: it
// registers (GoCondWait), the runtime unlocks the Locker through its own
// operation, waits to be signalled (GoCondWake) and locks the Locker again.
// Registering before unlocking is what makes a Signal between the unlock
// and the wait count, as in Go's notify lists.

func (w *World) goCondWait(tid int, op Op) {
	c := w.cond(op.Obj)
	c.waiters = append(c.waiters, condWaiter{tid: tid})
	th := &w.threads[tid-1]
	th.inGoCond, th.goCondObj = true, op.Obj
}

func (w *World) goCondWakeEnabled(tid int, op Op) bool {
	return w.signalled(tid, op.Obj)
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
}
