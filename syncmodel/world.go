package syncmodel

import (
	"errors"
	"fmt"
	"maps"
	"slices"
)

// World is the synchronization state of one execution: its threads, the
// operation each of them is about to perform, and every synchronization
// object they have touched.
//
// Runtimes report each thread's next operation with SetPending; the search
// asks which threads are Enabled and runs one with Execute, which applies the
// operation, returns what the call returns in the program, or reports a
// Misuse. Objects are keyed by their address (Op.Obj) in one namespace per
// primitive and are created lazily on first use, so that statically
// initialised objects need no init call.
//
// Once an Exit operation has executed the world is frozen: no thread is
// enabled or blocked any more and SetPending fails.
//
// A World is not safe for concurrent use.
type World struct {
	threads  []thread // threads[i] is thread i+1
	mutexes  map[uint64]*mutex
	spins    map[uint64]*mutex
	conds    map[uint64]*cond
	sems     map[uint64]*sem
	rwlocks  map[uint64]*rwlock
	barriers map[uint64]*barrier
	onces    map[uint64]*once

	gomutexes map[uint64]*gomutex
	gorws     map[uint64]*gorwmutex
	wgs       map[uint64]*waitGroup
	chans     map[uint64]*channel

	exited bool
	status int64

	// spurious lets an untimed condition wait return without a signal,
	// once per thread per execution (SetSpuriousWakeups).
	spurious bool

	// timerChans are the channels of timers (the Obj of their
	// TimerWaits); hot counts the threads woken by time (thread.hot).
	timerChans map[uint64]bool
	hot        int
}

// thread is the model's record of one thread. Its only pointers are to
// cases, which are never modified, so that copying it copies it deeply.
type thread struct {
	finished   bool
	hasPending bool
	pending    Op
	detached   bool
	joined     bool

	// A condition wait in progress (between CondWait and CondReacquire).
	inCond    bool
	condObj   uint64
	condMutex uint64
	condCount int   // recursion count of the mutex to restore
	condType  int64 // type of the mutex, in case it is destroyed meanwhile

	// A barrier wait in progress (between BarrierWait and BarrierLeave).
	inBarrier       bool
	barrierObj      uint64
	barrierReleased bool

	// The second half a Go operation requires: the kind the thread must
	// report next (GoRWLockDrain, WGWake, ChanWake; 0 if none) with its
	// object or cases.
	next      Kind
	nextObj   uint64
	nextCases []Case
	// A parked Go operation (between a ChanSend, ChanRecv, Select or WGWait
	// that parked and its wake): what parked, whether another thread has
	// woken it, and what the wake returns (wakeClosed: a sender woken by
	// a close, whose wake is a misuse).
	parkedOp   Kind
	woken      bool
	wakeCode   int64
	wakeClosed bool

	// A Go condition wait in progress (between GoCondWait and GoCondWake).
	inGoCond  bool
	goCondObj uint64

	// spuriousUsed: the thread has woken from a condition wait without a
	// signal in this execution (SetSpuriousWakeups).
	spuriousUsed bool

	// hot: time woke the thread (its TimerWait ran, or it received a
	// timer's time) and it has not reached an operation that may wait
	// since: no time passes while it can run (see earliestTimer).
	hot bool
}

// clearNext ends a two-halved Go operation.
func (th *thread) clearNext() {
	th.next, th.nextObj, th.nextCases = 0, 0, nil
	th.parkedOp, th.woken, th.wakeCode, th.wakeClosed = 0, false, 0, false
}

// Result is what an executed operation returns to the program.
type Result struct {
	// Code is an errno-style code (OK, EBUSY, ETIMEDOUT, ...) or a value:
	// the value chosen (Choose), the semaphore value (SemGetvalue), 1 if the
	// caller runs the initialiser or 0 if it is already done (OnceBegin),
	// BarrierSerial or OK (BarrierWait), the new thread id (ThreadCreate).
	Code int64
	// NewThread is the id of the thread created by a ThreadCreate, 0 for
	// other operations.
	NewThread int
	// Spurious is set on a CondWait that returned at once without a
	// signal (SetSpuriousWakeups); Code is then SpuriousReturn.
	Spurious bool
}

// Misuse is the error (as a *Misuse) Execute returns when an operation is a misuse of a
// synchronization primitive (unlocking a mutex held by another thread,
// joining a detached thread, destroying a locked object, ...). A misuse is a
// bug of the program under test; Execute leaves the world unchanged.
type Misuse struct {
	// Tid is the thread that performed the operation.
	Tid int
	// Op is the operation.
	Op Op
	// Msg is one readable sentence, e.g. "unlock of mutex 0x601040 held by
	// thread 2".
	Msg string
}

// Error returns the thread, the operation and the message.
func (m Misuse) Error() string {
	return fmt.Sprintf("thread %d: %s: %s", m.Tid, m.Op, m.Msg)
}

// ErrNotEnabled is returned (possibly wrapped) by Execute for a thread that
// has no pending operation or whose pending operation is not enabled.
var ErrNotEnabled = errors.New("syncmodel: thread not enabled")

// Wait explains why a blocked thread cannot go on.
type Wait struct {
	// Obj is the object waited on; 0 for a join.
	Obj uint64
	// Obj2 is a second object: for a condition wait blocked on its
	// condition variable, the mutex it will reacquire; for a condition wait
	// blocked on the mutex, the condition variable.
	Obj2 uint64
	// What names the kind of Obj: "mutex", "condition variable",
	// "semaphore", "rwlock", "barrier", "spin lock", "once" or "thread".
	What string
	// Holders are the threads holding Obj (the mutex or spin lock owner,
	// the rwlock writer or readers, the thread running a once initialiser),
	// in ascending order.
	Holders []int
	// Join is the thread waited for by a join, 0 otherwise.
	Join int
	// Detail is a short extra, e.g. "value 0", "2 of 3 arrived", "not
	// signalled", "held by thread 2 (finished)".
	Detail string
}

// NewWorld returns the initial world: thread 1 exists and is live, with no
// pending operation yet, and there are no objects.
func NewWorld() *World {
	return &World{threads: make([]thread, 1, 4)}
}

// put stores v at key k of the object map *m, making the map on first use:
// the maps of a world stay nil until it has an object of their kind, so
// that a new world costs little.
func put[V any](m *map[uint64]*V, k uint64, v *V) {
	if *m == nil {
		*m = make(map[uint64]*V)
	}
	(*m)[k] = v
}

// thread returns the record of thread tid, or nil if there is no such thread.
func (w *World) thread(tid int) *thread {
	if tid < 1 || tid > len(w.threads) {
		return nil
	}
	return &w.threads[tid-1]
}

// finished reports whether tid is a thread that has finished.
func (w *World) finished(tid int) bool {
	th := w.thread(tid)
	return th != nil && th.finished
}

// SetPending records op as the next operation of thread tid. It fails if tid
// is unknown or finished, if the world has exited, if op.Kind is not a valid
// kind, if a Choose offers fewer than one value, or if op does not fit the
// thread's state: a thread in the middle of a condition wait must report the
// matching CondReacquire, a thread in the middle of a barrier wait the
// matching BarrierLeave, and those two kinds are only valid in that state.
// A pending operation already recorded is replaced.
func (w *World) SetPending(tid int, op Op) error {
	th := w.thread(tid)
	switch {
	case th == nil:
		return fmt.Errorf("syncmodel: no thread %d", tid)
	case th.finished:
		return fmt.Errorf("syncmodel: thread %d has finished", tid)
	case w.exited:
		return fmt.Errorf("syncmodel: thread %d: the process has exited", tid)
	case !op.Kind.Valid():
		return fmt.Errorf("syncmodel: thread %d: invalid operation kind %s", tid, op.Kind)
	case op.Kind == Choose && op.Arg < 1:
		return fmt.Errorf("syncmodel: thread %d: choice among %d values", tid, op.Arg)
	case op.Kind == Select && (op.Arg < 0 || op.Arg > 1):
		return fmt.Errorf("syncmodel: thread %d: %s: default flag %d (want 0 or 1)", tid, op, op.Arg)
	case op.Kind == Select && len(op.Cases) > MaxCases:
		return fmt.Errorf("syncmodel: thread %d: select with %d cases (at most %d)", tid, len(op.Cases), MaxCases)
	case tid > MaxChanThread && isChanKind(op.Kind):
		return fmt.Errorf("syncmodel: thread %d: channel operations are limited to threads 1..%d", tid, MaxChanThread)
	}
	if err := w.checkNext(tid, th, op); err != nil {
		return err
	}
	switch {
	case th.inCond:
		if op.Kind != CondReacquire || op.Obj != th.condObj || op.Obj2 != th.condMutex {
			return fmt.Errorf("syncmodel: thread %d is waiting on condition variable %#x with mutex %#x; got %s",
				tid, th.condObj, th.condMutex, op)
		}
	case th.inBarrier:
		if op.Kind != BarrierLeave || op.Obj != th.barrierObj {
			return fmt.Errorf("syncmodel: thread %d is waiting on barrier %#x; got %s", tid, th.barrierObj, op)
		}
	case op.Kind == CondReacquire:
		return fmt.Errorf("syncmodel: thread %d: %s without a condition wait", tid, op)
	case op.Kind == BarrierLeave:
		return fmt.Errorf("syncmodel: thread %d: %s without a barrier wait", tid, op)
	}
	th.pending = op
	th.hasPending = true
	if op.Kind == TimerWait && op.Obj != 0 {
		if w.timerChans == nil {
			w.timerChans = make(map[uint64]bool)
		}
		w.timerChans[op.Obj] = true
	}
	if th.hot && mayWait(op.Kind) {
		w.cool(th)
	}
	return nil
}

// TimerChannel reports whether channel ch is a timer's (a TimerWait named
// it).
func (w *World) TimerChannel(ch uint64) bool { return w.timerChans[ch] }

// cool ends the time a thread woken by time runs in.
func (w *World) cool(th *thread) {
	th.hot = false
	w.hot--
}

// mayWait reports whether an operation of kind k may wait for something
// else than a lock, or polls: a thread woken by time that reaches one stops
// running at the instant it woke (see earliestTimer). A lock is held for a
// while by a thread that will release it, while a channel, a condition, a
// wait group or a join may wait for ever (as Go's testing/synctest tells
// blocking apart). It depends on the kind alone, not on the state, so that
// whether a thread still runs at that instant depends only on its own
// operations: two schedules of one trace agree on it.
func mayWait(k Kind) bool {
	switch k {
	case ChanSend, ChanRecv, Select, ChanWake, WGWait, WGWake, GoCondWait, GoCondWake, CondWait, ThreadJoin,
		SemWait, SemTimedwait, BarrierWait, BarrierLeave, Yield, Sleep, TimerWait, Exit:
		return true
	}
	return false
}

// heat records what time did to thread tid by the operation op it just
// performed, with result res: a thread is woken by time when its own
// TimerWait ran or when it received from a timer's channel; it stops
// running at that instant when it reaches an operation that may wait (see
// mayWait), or finishes.
func (w *World) heat(tid int, op Op, res Result) {
	th := &w.threads[tid-1]
	woken := op.Kind == TimerWait
	if !woken && len(w.timerChans) > 0 {
		switch op.Kind {
		case ChanRecv:
			woken = w.timerChans[op.Obj]
		case Select, ChanWake:
			if r := DecodeChanResult(res.Code); r.Via != ViaDefault && r.Via != ViaParked && r.Case >= 0 && r.Case < len(op.Cases) {
				if c := op.Cases[r.Case]; !c.Send {
					woken = w.timerChans[c.Chan]
				}
			}
		}
	}
	switch {
	case woken && !th.hot && !th.finished:
		th.hot = true
		w.hot++
	case th.hot && th.finished:
		w.cool(th)
	}
}

// checkNext checks op against the second half of a Go operation that tid
// must report, and against a Go condition wait in progress.
func (w *World) checkNext(tid int, th *thread, op Op) error {
	switch {
	case th.next != 0:
		ok := op.Kind == th.next && op.Obj == th.nextObj
		if ok && th.next == ChanWake {
			ok = len(op.Cases) == len(th.nextCases) && (th.parkedOp == Select) == (op.Cases != nil)
		}
		if !ok {
			return fmt.Errorf("syncmodel: thread %d must report %s on %#x next; got %s", tid, th.next, th.nextObj, op)
		}
	case op.Kind == GoRWLockDrain || op.Kind == WGWake || op.Kind == ChanWake:
		return fmt.Errorf("syncmodel: thread %d: %s without its first half", tid, op)
	case op.Kind == GoCondWake && (!th.inGoCond || op.Obj != th.goCondObj):
		return fmt.Errorf("syncmodel: thread %d: %s without a matching Go condition wait", tid, op)
	case op.Kind == GoCondWait && th.inGoCond:
		return fmt.Errorf("syncmodel: thread %d: %s while already waiting on condition variable %#x", tid, op, th.goCondObj)
	}
	return nil
}

// Pending returns the pending operation of thread tid, and whether it has
// one. A finished thread keeps the operation that finished it.
func (w *World) Pending(tid int) (Op, bool) {
	th := w.thread(tid)
	if th == nil || !th.hasPending {
		return Op{}, false
	}
	return th.pending, true
}

// Annotated returns the pending operation of thread tid with its effect in
// the current state filled in (Op.Eff), for the dependency relation: what
// a reducing search compares. ok is false if tid has no pending operation.
func (w *World) Annotated(tid int) (op Op, ok bool) {
	op, ok = w.Pending(tid)
	if !ok {
		return op, false
	}
	w.annotate(tid, &op)
	return op, true
}

// annotate fills in op.Eff, the effect of thread tid's pending operation
// op in the current state (Annotated). The kinds it looks at the state for
// are those StateAnnotated lists.
func (w *World) annotate(tid int, op *Op) {
	switch op.Kind {
	case ChanSend, ChanRecv:
		op.Eff = w.chanEffect(*op)
	case WGAdd:
		op.Eff = Effect{Known: true}
		if g := w.wgs[op.Obj]; g != nil {
			op.Eff.Counter = g.count
		}
	case GoCondWake:
		// Known once signalled: by whom (see goCondWakeDependent).
		if by := w.signaller(tid, op.Obj); by != 0 {
			op.Eff = Effect{Known: true, Partner: by}
		}
	case RWUnlock:
		op.Eff = Effect{Known: true}
		if r := w.rwlocks[op.Obj]; r != nil {
			op.Eff.Writer = r.writer == tid
		}
	case GoRWRUnlock:
		op.Eff = Effect{Known: true}
		if r := w.gorws[op.Obj]; r != nil {
			op.Eff.Own = r.readers[tid] > 0
		}
	case Select:
		// Which case proceeds is a choice made when it runs: its effect
		// is left unknown, which Dependent treats conservatively. But
		// whichever case it is, it may complete a parked select, and
		// then it touches that select's other channels too: a receive
		// on one of them no longer finds the select there.
		op.Eff.Links = w.selectLinks(*op)
	default:
		op.Eff = Effect{Known: true}
	}
}

// Live returns the ids of the threads that have not finished, ascending.
func (w *World) Live() []int {
	var ids []int
	for i := range w.threads {
		if !w.threads[i].finished {
			ids = append(ids, i+1)
		}
	}
	return ids
}

// Finished reports whether thread tid exists and has finished.
func (w *World) Finished(tid int) bool { return w.finished(tid) }

// NumThreads returns the number of threads ever created; thread ids are
// 1..NumThreads().
func (w *World) NumThreads() int { return len(w.threads) }

// Exited returns the exit status once an Exit operation has executed.
func (w *World) Exited() (status int64, ok bool) { return w.status, w.exited }

// Enabled reports whether thread tid has a pending operation that it can
// perform now. An operation that is a misuse is enabled, so that Execute can
// report it. After an Exit no thread is enabled.
func (w *World) Enabled(tid int) bool {
	th := w.thread(tid)
	if th == nil || th.finished || !th.hasPending || w.exited {
		return false
	}
	return w.enabled(tid, &th.pending)
}

// enabled is Enabled for thread tid's pending operation *op (a pointer:
// it is called for every thread at every step, and an Op is big).
func (w *World) enabled(tid int, op *Op) bool {
	switch op.Kind {
	case ThreadJoin:
		return w.joinEnabled(tid, *op)
	case MutexLock:
		return lockEnabled(w.mutexes[op.Obj], tid)
	case SpinLock:
		return lockEnabled(w.spins[op.Obj], tid)
	case CondReacquire:
		return w.reacquireEnabled(tid, *op)
	case SemWait:
		return w.semWaitEnabled(*op)
	case RWRdlock:
		return w.rdlockEnabled(tid, *op)
	case RWWrlock:
		return w.wrlockEnabled(tid, *op)
	case BarrierLeave:
		return w.threads[tid-1].barrierReleased
	case OnceBegin:
		return w.onceEnabled(tid, *op)
	case GoMutexLock:
		return w.goMutexEnabled(*op)
	case GoRWRLock, GoRWLock:
		return w.goRWFree(*op)
	case GoRWLockDrain:
		return w.goRWDrained(*op)
	case WGWait:
		return w.wgZero(*op)
	case WGWake, ChanWake:
		return w.threads[tid-1].woken
	case GoCondWake:
		return w.goCondWakeEnabled(tid, *op)
	case ChanSend:
		return op.Obj != 0
	case ChanRecv:
		// A receive does not park: it waits, disabled, until a value or
		// the close is there (see recvWaits).
		return w.caseReady(plainCase(*op))
	case Select:
		return !recvOnly(*op) || w.numReady(op.Cases) > 0
	case TimerWait:
		return w.earliestTimer(tid, op.Arg)
	}
	return true
}

// earliestTimer reports whether time may pass to at for thread tid's
// TimerWait: no other live thread has a pending TimerWait earlier than at,
// nor a timer that fired and has still to deliver its time (a pending
// Select of API APITimerFire: the time is there in the instant the timer
// fires), nor is a thread that time woke still running at that instant
// (thread.hot: a goroutine wakes from a sleep, or a timer's time, at that
// time; however slow the other goroutines are, it is not).
func (w *World) earliestTimer(tid int, at int64) bool {
	for i := range w.threads {
		th := &w.threads[i]
		if i+1 == tid || th.finished || !th.hasPending {
			continue
		}
		if p := &th.pending; p.Kind == TimerWait && p.Arg < at || p.Kind == Select && p.API == APITimerFire {
			return false
		}
		if th.hot && w.enabled(i+1, &th.pending) || w.timeReady(th) {
			return false
		}
	}
	return true
}

// timeReady reports whether thread th can take a timer's time now: its
// pending receive (or select, or the wake of one that parked) finds a
// timer's time on offer, in a timer's buffer, or delivered. Time stands
// still until it has: a goroutine waiting for a timer wakes when it fires.
func (w *World) timeReady(th *thread) bool {
	if len(w.timerChans) == 0 {
		return false
	}
	op := &th.pending
	switch op.Kind {
	case ChanRecv:
		return w.timerChans[op.Obj] && w.caseReady(plainCase(*op))
	case Select:
		for _, c := range op.Cases {
			if !c.Send && w.timerChans[c.Chan] && w.caseReady(c) {
				return true
			}
		}
	case ChanWake:
		if r := DecodeChanResult(th.wakeCode); th.woken && r.Case >= 0 && r.Case < len(th.nextCases) {
			c := th.nextCases[r.Case]
			return !c.Send && w.timerChans[c.Chan]
		}
	}
	return false
}

// Choices returns the number of ways the pending operation of thread tid
// can go when that is a choice the search must explore, 0 otherwise: the
// number of values of a Choose (Arg), the number of ready cases of a
// Select when more than one is ready, or 2 for a CondWait that may return
// spuriously (SetSpuriousWakeups: 1 returns). Execute then takes the choice: a
// value of the Choose, or the index among the ready cases, in the order of
// Op.Cases, of the case that proceeds. The default case of a select is not
// a choice: it runs only when no case is ready.
func (w *World) Choices(tid int) int {
	th := w.thread(tid)
	if th == nil || th.finished || !th.hasPending || w.exited {
		return 0
	}
	return w.choices(tid, th)
}

// choices is Choices for the live thread th (thread tid) with a pending
// operation.
func (w *World) choices(tid int, th *thread) int {
	switch th.pending.Kind {
	case Choose:
		return int(th.pending.Arg)
	case CondWait:
		if w.canWakeSpuriously(tid) {
			return 2
		}
	case Select:
		if n := w.numReady(th.pending.Cases); n > 1 {
			return n
		}
	}
	return 0
}

// Blocked returns the live threads that have a pending operation that is not
// enabled, but a TimerWait (it waits for time, which always passes),
// ascending. After an Exit it returns nil.
func (w *World) Blocked() []int {
	if w.exited {
		return nil
	}
	var ids []int
	for i := range w.threads {
		th := &w.threads[i]
		// A TimerWait not yet enabled waits for time, which passes: it
		// is not blocked.
		if !th.finished && th.hasPending && th.pending.Kind != TimerWait && !w.enabled(i+1, &th.pending) {
			ids = append(ids, i+1)
		}
	}
	return ids
}

// Execute performs the pending operation of thread tid. choice is the value
// chosen for a Choose operation (0 <= choice < Arg), or for a Select with
// several ready cases the index among them of the case that proceeds (0 <=
// choice < Choices(tid)); it is ignored otherwise. It returns ErrNotEnabled if the thread has no pending operation or
// cannot perform it, a *Misuse if the operation is a misuse, and another
// error for an unknown thread or a choice out of range; on any error the
// world is left unchanged. On success the pending operation is cleared,
// unless the operation finished the thread.
func (w *World) Execute(tid int, choice int) (Result, error) {
	th := w.thread(tid)
	if th == nil {
		return Result{}, fmt.Errorf("syncmodel: no thread %d", tid)
	}
	if !w.Enabled(tid) {
		if !th.hasPending {
			return Result{}, fmt.Errorf("%w: thread %d has no pending operation", ErrNotEnabled, tid)
		}
		return Result{}, fmt.Errorf("%w: thread %d cannot perform %s", ErrNotEnabled, tid, th.pending)
	}
	op := th.pending
	res, msg, err := w.exec(tid, op, choice)
	if err != nil {
		return Result{}, err
	}
	if msg != "" {
		return Result{}, &Misuse{Tid: tid, Op: op, Msg: msg}
	}
	// exec may have grown w.threads: look the thread up again.
	th = w.thread(tid)
	if !th.finished {
		th.hasPending = false
		th.pending = Op{}
	}
	w.heat(tid, op, res)
	return res, nil
}

// exec applies op for thread tid. It returns the result, or a misuse message,
// or an error for a bad argument. When it returns a message or an error it
// has changed nothing.
func (w *World) exec(tid int, op Op, choice int) (Result, string, error) {
	var (
		code int64
		msg  string
	)
	switch op.Kind {
	case ThreadCreate:
		id := w.create(op.Arg == 1)
		return Result{Code: int64(id), NewThread: id}, "", nil
	case ThreadExit:
		w.threads[tid-1].finished = true
	case ThreadJoin:
		msg = w.join(tid, op)
	case ThreadDetach:
		msg = w.detach(op)

	case MutexInit:
		msg = w.mutexInit(&w.mutexes, op, "mutex")
	case MutexLock:
		msg = lock(w.mutex(op), tid, "mutex")
	case MutexTrylock:
		code = trylock(w.mutex(op), tid)
	case MutexTimedlock:
		code, msg = timedlock(w.mutex(op), tid, "mutex")
	case MutexUnlock:
		msg = w.unlock(w.mutexes, op.Obj, tid, "mutex")
	case MutexDestroy:
		msg = w.mutexDestroy(w.mutexes, op, "mutex")

	case SpinInit:
		msg = w.mutexInit(&w.spins, Op{Obj: op.Obj, Arg: MutexNormal}, "spin lock")
	case SpinLock:
		msg = lock(w.spin(op), tid, "spin lock")
	case SpinTrylock:
		code = trylock(w.spin(op), tid)
	case SpinUnlock:
		msg = w.unlock(w.spins, op.Obj, tid, "spin lock")
	case SpinDestroy:
		msg = w.mutexDestroy(w.spins, op, "spin lock")

	case CondInit:
		msg = w.condInit(op)
	case CondWait:
		if choice == 1 && w.canWakeSpuriously(tid) {
			if msg = w.condWaitMisuse(tid, op); msg == "" {
				w.threads[tid-1].spuriousUsed = true
				return Result{Code: SpuriousReturn, Spurious: true}, "", nil
			}
			break
		}
		msg = w.condWait(tid, op)
	case CondReacquire:
		code = w.condReacquire(tid, op)
	case CondSignal:
		w.condSignal(tid, op, false)
	case CondBroadcast:
		w.condSignal(tid, op, true)
	case CondDestroy:
		msg = w.condDestroy(op)

	case SemInit:
		msg = w.semInit(op)
	case SemWait:
		if msg = w.semUse(op); msg == "" {
			w.sem(op.Obj).value--
		}
	case SemTrywait:
		if msg = w.semUse(op); msg == "" {
			code = w.semTry(op, EAGAIN)
		}
	case SemTimedwait:
		if msg = w.semUse(op); msg == "" {
			code = w.semTry(op, ETIMEDOUT)
		}
	case SemPost:
		if msg = w.semUse(op); msg == "" {
			w.sem(op.Obj).value++
		}
	case SemGetvalue:
		if msg = w.semUse(op); msg == "" {
			if s := w.sems[op.Obj]; s != nil {
				code = s.value
			}
		}
	case SemDestroy:
		msg = w.semDestroy(tid, op)

	case RWInit:
		msg = w.rwInit(op)
	case RWRdlock:
		msg = w.rdlock(tid, op)
	case RWWrlock:
		msg = w.wrlock(tid, op)
	case RWTryRdlock:
		code = w.tryRdlock(tid, op, EBUSY)
	case RWTryWrlock:
		code = w.tryWrlock(tid, op)
	case RWTimedRdlock:
		code, msg = w.timedRdlock(tid, op)
	case RWTimedWrlock:
		code, msg = w.timedWrlock(tid, op)
	case RWUnlock:
		msg = w.rwUnlock(tid, op)
	case RWDestroy:
		msg = w.rwDestroy(op)

	case BarrierInit:
		msg = w.barrierInit(op)
	case BarrierWait:
		code, msg = w.barrierWait(tid, op)
	case BarrierLeave:
		th := &w.threads[tid-1]
		th.inBarrier, th.barrierObj, th.barrierReleased = false, 0, false
	case BarrierDestroy:
		msg = w.barrierDestroy(op)

	case OnceBegin:
		code, msg = w.onceBegin(tid, op)
	case OnceEnd:
		w.onceEnd(op)

	case Yield, Sleep, Read, Write, TimerWait, ThreadStart:
	case Choose:
		if choice < 0 || int64(choice) >= op.Arg {
			return Result{}, "", fmt.Errorf("syncmodel: thread %d: choice %d out of range 0..%d", tid, choice, op.Arg-1)
		}
		code = int64(choice)
	case Exit:
		w.exited = true
		w.status = op.Arg
		w.threads[tid-1].finished = true

	case GoMutexLock:
		w.goMutex(op.Obj).holder = tid
	case GoMutexTryLock:
		code = w.goMutexTryLock(tid, op)
	case GoMutexUnlock:
		msg = w.goMutexUnlock(op)
	case GoRWRLock:
		w.goRW(op.Obj).readers[tid]++
	case GoRWTryRLock:
		code = w.goRWTryRLock(tid, op)
	case GoRWRUnlock:
		msg = w.goRWRUnlock(tid, op)
	case GoRWLock:
		w.goRWLock(tid, op)
	case GoRWLockDrain:
		w.goRW(op.Obj).locked = true
		w.threads[tid-1].clearNext()
	case GoRWTryLock:
		code = w.goRWTryLock(tid, op)
	case GoRWUnlock:
		msg = w.goRWUnlock(op)

	case WGAdd:
		msg = w.wgAdd(op)
	case WGWait:
		code = w.wgWait(tid, op)
	case WGWake:
		msg = w.wgWake(tid, op)

	case GoCondWait:
		msg = w.goCondWait(tid, op)
	case GoCondWake:
		w.goCondWake(tid, op)

	case ChanMake:
		msg = w.chanMake(op)
	case ChanSend, ChanRecv, Select:
		return w.chanOp(tid, op, choice)
	case ChanClose:
		msg = w.chanClose(op)
	case ChanLen:
		code = w.chanLen(op)
	case ChanWake:
		code, msg = w.chanWake(tid)
	default:
		return Result{}, "", fmt.Errorf("syncmodel: thread %d: invalid operation kind %s", tid, op.Kind)
	}
	if msg != "" {
		return Result{}, msg, nil
	}
	return Result{Code: code}, "", nil
}

// WaitFor explains why thread tid cannot perform its pending operation. It
// returns the zero Wait if tid is not blocked.
func (w *World) WaitFor(tid int) Wait {
	th := w.thread(tid)
	if th == nil || th.finished || !th.hasPending || w.exited || w.enabled(tid, &th.pending) {
		return Wait{}
	}
	op := th.pending
	switch op.Kind {
	case ThreadJoin:
		return Wait{What: "thread", Join: int(op.Arg), Detail: fmt.Sprintf("thread %d has not exited", op.Arg)}
	case MutexLock:
		return w.mutexWait(w.mutexes[op.Obj], op.Obj, 0, "mutex")
	case SpinLock:
		return w.mutexWait(w.spins[op.Obj], op.Obj, 0, "spin lock")
	case CondReacquire:
		if !w.signalled(tid, op.Obj) && op.Arg != 1 {
			return Wait{Obj: op.Obj, Obj2: op.Obj2, What: "condition variable", Detail: "not signalled"}
		}
		return w.mutexWait(w.mutexes[op.Obj2], op.Obj2, op.Obj, "mutex")
	case SemWait:
		return Wait{Obj: op.Obj, What: "semaphore", Detail: "value 0"}
	case RWRdlock, RWWrlock:
		return w.rwWait(op)
	case BarrierLeave:
		b := w.barriers[op.Obj]
		wt := Wait{Obj: op.Obj, What: "barrier"}
		if b != nil {
			wt.Detail = fmt.Sprintf("%d of %d arrived", len(b.waiting), b.count)
		}
		return wt
	case OnceBegin:
		o := w.onces[op.Obj]
		return Wait{Obj: op.Obj, What: "once", Holders: []int{o.runner},
			Detail: "initialiser running in " + w.threadName(o.runner)}
	case GoMutexLock:
		return w.goMutexWait(op)
	case GoRWRLock, GoRWLock, GoRWLockDrain:
		return w.goRWWait(op)
	case WGWait, WGWake:
		return w.wgWaitFor(op)
	case GoCondWake:
		return w.goCondWaitFor(tid, op)
	case ChanSend, ChanRecv, ChanWake, Select:
		return w.chanWait(tid, op)
	}
	return Wait{}
}

// threadName returns "thread N", with " (finished)" if N has finished.
func (w *World) threadName(tid int) string {
	if w.finished(tid) {
		return fmt.Sprintf("thread %d (finished)", tid)
	}
	return fmt.Sprintf("thread %d", tid)
}

// Clone returns a deep copy of the world.
func (w *World) Clone() *World {
	c := *w
	c.threads = slices.Clone(w.threads)
	c.mutexes = cloneMap(w.mutexes, func(m *mutex) *mutex { x := *m; return &x })
	c.spins = cloneMap(w.spins, func(m *mutex) *mutex { x := *m; return &x })
	c.conds = cloneMap(w.conds, func(x *cond) *cond {
		return &cond{mutex: x.mutex, waiters: slices.Clone(x.waiters)}
	})
	c.sems = cloneMap(w.sems, func(s *sem) *sem { x := *s; return &x })
	c.rwlocks = cloneMap(w.rwlocks, func(r *rwlock) *rwlock {
		return &rwlock{writer: r.writer, readers: maps.Clone(r.readers)}
	})
	c.barriers = cloneMap(w.barriers, func(b *barrier) *barrier {
		return &barrier{count: b.count, waiting: slices.Clone(b.waiting)}
	})
	c.onces = cloneMap(w.onces, func(o *once) *once { x := *o; return &x })
	c.gomutexes = cloneMap(w.gomutexes, func(m *gomutex) *gomutex { x := *m; return &x })
	c.gorws = cloneMap(w.gorws, (*gorwmutex).clone)
	c.wgs = cloneMap(w.wgs, (*waitGroup).clone)
	c.chans = cloneMap(w.chans, (*channel).clone)
	c.timerChans = maps.Clone(w.timerChans)
	return &c
}

func cloneMap[V any](m map[uint64]*V, clone func(*V) *V) map[uint64]*V {
	if m == nil {
		return nil
	}
	c := make(map[uint64]*V, len(m))
	for k, v := range m {
		c[k] = clone(v)
	}
	return c
}

// threadList returns "thread 2" or "threads 2, 3" for ids in ascending order.
func threadList(ids []int) string {
	if len(ids) == 1 {
		return fmt.Sprintf("thread %d", ids[0])
	}
	s := "threads "
	for i, id := range ids {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(id)
	}
	return s
}

// threadsVerb returns threadList(ids) followed by the verb in the singular
// or the plural, e.g. "thread 2 waits", "threads 2, 3 wait".
func threadsVerb(ids []int, singular, plural string) string {
	if len(ids) == 1 {
		return threadList(ids) + " " + singular
	}
	return threadList(ids) + " " + plural
}
