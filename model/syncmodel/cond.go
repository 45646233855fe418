package syncmodel

import (
	"fmt"
	"slices"
)

// condState is the world's condition variables, C and Go, by address,
// and whether a C wait may return spuriously (SetSpuriousWakeups).
type condState struct {
	conds map[uint64]*cond
	// spurious lets an untimed condition wait return without a signal,
	// once per thread per execution (SetSpuriousWakeups).
	spurious bool
}

// condThread is what condition variables keep of a thread.
type condThread struct {
	// A C condition wait in progress (between CondWait and
	// CondReacquire, which the thread owes: thread.next, with the
	// condition variable in thread.nextObj): the mutex, its recursion
	// count to restore and its type, in case it is destroyed meanwhile.
	condMutex uint64
	condCount int
	condType  int64

	// A Go condition wait in progress (between GoCondWait and GoCondWake).
	inGoCond  bool
	goCondObj uint64

	// spuriousUsed: the thread has woken from a condition wait without a
	// signal in this execution (SetSpuriousWakeups).
	spuriousUsed bool
}

// condPrim is the primitive of condition variables: POSIX and C11 ones,
// whose wait is two events (CondWait releases the mutex and waits,
// CondReacquire takes it back once signalled, or timed out), and Go's
// sync.Cond (GoCondWait, GoCondWake), which shares their records and
// their CondSignal and CondBroadcast.
type condPrim struct{}

func (*condPrim) kinds() []kindSpec {
	return []kindSpec{
		{kind: CondInit},
		{kind: CondWait, objects: objObj2, mayWait: true, precedes: true, chooses: true},
		{kind: CondReacquire, objects: objObj2},
		{kind: CondSignal},
		{kind: CondBroadcast},
		{kind: CondDestroy},
		{kind: GoCondWait, objects: objObj2Set, mayWait: true, precedes: true},
		{kind: GoCondWake, objects: objObj2Set, mayWait: true, stateEff: true},
	}
}

func (*condPrim) check(_ *World, tid int, th *thread, op Op) error {
	switch {
	case op.Kind == CondReacquire:
		return fmt.Errorf("syncmodel: thread %d: %s without a condition wait", tid, op)
	case op.Kind == GoCondWake && (!th.inGoCond || op.Obj != th.goCondObj):
		return fmt.Errorf("syncmodel: thread %d: %s without a matching Go condition wait", tid, op)
	case op.Kind == GoCondWait && th.inGoCond:
		return fmt.Errorf("syncmodel: thread %d: %s while already waiting on condition variable %#x", tid, op, th.goCondObj)
	}
	return nil
}

// checkNext: a thread in a C condition wait must report its
// CondReacquire, on the same condition variable and mutex.
func (*condPrim) checkNext(_ *World, tid int, th *thread, op Op) error {
	if op.Kind != CondReacquire || op.Obj != th.nextObj || op.Obj2 != th.condMutex {
		return fmt.Errorf("syncmodel: thread %d is waiting on condition variable %#x with mutex %#x; got %s",
			tid, th.nextObj, th.condMutex, op)
	}
	return nil
}

func (*condPrim) enabled(w *World, tid int, op *Op) bool {
	switch op.Kind {
	case CondReacquire:
		return w.reacquireEnabled(tid, op)
	case GoCondWake:
		return w.goCondWakeEnabled(tid, op)
	}
	return true
}

func (*condPrim) choices(w *World, tid int, th *thread) int {
	if th.pending.Kind == CondWait && w.canWakeSpuriously(tid) {
		return 2
	}
	return 0
}

func (*condPrim) exec(w *World, tid int, op *Op, choice int) (Result, string, error) {
	var (
		code int64
		msg  string
	)
	switch op.Kind {
	case CondInit:
		msg = w.condInit(*op)
	case CondWait:
		if choice == 1 && w.canWakeSpuriously(tid) {
			if msg = w.condWaitMisuse(tid, *op); msg == "" {
				w.threads[tid-1].spuriousUsed = true
				return Result{Code: SpuriousReturn, Spurious: true}, "", nil
			}
			break
		}
		msg = w.condWait(tid, *op)
	case CondReacquire:
		code = w.condReacquire(tid, *op)
	case CondSignal:
		w.condSignal(tid, *op, false)
	case CondBroadcast:
		w.condSignal(tid, *op, true)
	case CondDestroy:
		msg = w.condDestroy(*op)
	case GoCondWait:
		msg = w.goCondWait(tid, *op)
	case GoCondWake:
		w.goCondWake(tid, *op)
	}
	return done(code, msg)
}

func (*condPrim) waitFor(w *World, tid int, op *Op) Wait {
	if op.Kind == GoCondWake {
		return w.goCondWaitFor(tid, op)
	}
	// A CondReacquire.
	if !w.signalled(tid, op.Obj) && op.Arg != 1 {
		return Wait{Obj: op.Obj, Obj2: op.Obj2, What: "condition variable", Detail: "not signalled"}
	}
	return w.mutexWait(w.mutexes[op.Obj2], op.Obj2, op.Obj, "mutex")
}

// effect: a Go condition wake is known once signalled, with its signaller
// (see goCondWakeDependent); unknown before.
func (*condPrim) effect(w *World, tid int, op *Op) Effect {
	if op.Kind != GoCondWake {
		return Effect{Known: true}
	}
	if by := w.signaller(tid, op.Obj); by != 0 {
		return Effect{Known: true, Partner: by}
	}
	return Effect{}
}

func (*condPrim) dependent(ta int, a *Op, tb int, b *Op, _ bool) bool {
	switch {
	case a.Kind == GoCondWake:
		return goCondWakeDependent(a, tb, b)
	case b.Kind == GoCondWake:
		return goCondWakeDependent(b, ta, a)
	}
	return sharesObject(a, b)
}

// goCondWakeDependent reports whether the wake of a Go condition wait
// (wake) depends on op by thread t. A wake that relocks a mutex (Obj2)
// depends on every operation on that mutex. On its condition variable, a
// wake that was signalled (Eff.Known, Eff.Partner the signaller) only takes
// its goroutine off the waiters: it commutes with registering another
// waiter, with other wakes, and with signals and broadcasts of other
// threads, which pick among the waiters not yet signalled, where it no
// longer is. It depends on the signals and broadcasts of its signaller, one
// of which enabled it. A wake not known to be signalled depends on
// everything on its condition variable.
func goCondWakeDependent(wake *Op, t int, op *Op) bool {
	switch {
	case wake.Obj2 != 0 && usesObject(op, wake.Obj2):
		return true
	case !usesObject(op, wake.Obj):
		return false
	case !wake.Eff.Known || op.Kind == GoCondWake && !op.Eff.Known:
		return true
	case op.Kind == CondSignal || op.Kind == CondBroadcast:
		return t == wake.Eff.Partner
	}
	return false
}

// mustPrecede: the release of a mutex by a condition wait, C or Go, and a
// lock of it that waits.
func (*condPrim) mustPrecede(_ int, a *Op, _ int, b *Op) bool {
	switch a.Kind {
	case CondWait:
		return b.Kind == MutexLock && b.Obj == a.Obj2
	case GoCondWait:
		return b.Kind == GoMutexLock && a.Obj2 != 0 && b.Obj == a.Obj2
	}
	return false
}

func (*condPrim) fingerprint(w *World, f fp) fp {
	f.b(w.spurious)
	for i := range w.threads {
		th := &w.threads[i]
		f.u(th.condMutex)
		f.n(th.condCount)
		f.i(th.condType)
		f.b(th.inGoCond)
		f.u(th.goCondObj)
		f.b(th.spuriousUsed)
	}
	for _, k := range sortedKeys(w.conds) {
		if c := w.conds[k]; len(c.waiters) > 0 {
			f.u(k)
			f.u(c.mutex)
			f.n(len(c.waiters))
			for _, wt := range c.waiters {
				f.n(wt.tid)
				f.b(wt.signalled)
				// Not wt.by: who signalled a waiter changes nothing
				// it or anyone else can do (only which events DPOR
				// orders).
			}
		}
	}
	return f
}

func (*condPrim) clone(dst, src *World) {
	dst.conds = cloneMap(src.conds, func(x *cond) *cond {
		return &cond{mutex: x.mutex, waiters: slices.Clone(x.waiters)}
	})
}

func (*condPrim) reset(w *World) { w.condState = condState{conds: keepMap(w.conds)} }

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

// signalled reports whether tid waits on condition variable obj and has been
// signalled.
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
	th.next, th.nextObj, th.condMutex = CondReacquire, op.Obj, op.Obj2
	th.condCount, th.condType = m.count, m.typ
	m.owner, m.count = 0, 0
	c.mutex = op.Obj2
	c.waiters = append(c.waiters, condWaiter{tid: tid})
	return ""
}

func (w *World) reacquireEnabled(tid int, op *Op) bool {
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
func (w *World) SetSpuriousWakeups(on bool) {
	w.spurious = on
	w.changed()
}

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
	th.next, th.nextObj, th.condMutex, th.condCount, th.condType = 0, 0, 0, 0, 0
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
		if msg := w.goMutexUnlock(op.Obj2); msg != "" {
			return msg
		}
	}
	c := w.cond(op.Obj)
	c.waiters = append(c.waiters, condWaiter{tid: tid})
	th := &w.threads[tid-1]
	th.inGoCond, th.goCondObj = true, op.Obj
	return ""
}

func (w *World) goCondWakeEnabled(tid int, op *Op) bool {
	return w.signalled(tid, op.Obj) && (op.Obj2 == 0 || w.goMutexFree(op.Obj2))
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
func (w *World) goCondWaitFor(tid int, op *Op) Wait {
	if op.Obj2 != 0 && w.signalled(tid, op.Obj) {
		wt := w.goMutexWait(op.Obj2)
		wt.Obj2 = op.Obj
		return wt
	}
	return Wait{Obj: op.Obj, Obj2: op.Obj2, What: "condition variable", Detail: "not signalled"}
}
