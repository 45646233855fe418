package syncmodel

import (
	"errors"
	"fmt"
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
	threads []thread // threads[i] is thread i+1

	exited bool
	status int64
	// misuseAt is Misuse.At of the misuse an operation under way reports
	// (set by its primitive, read by Execute; no state between steps).
	misuseAt int

	// The state of each primitive (see prims.go), declared in its file.
	mutexState
	spinState
	condState
	semState
	rwlockState
	barrierState
	onceState
	goMutexState
	goRWState
	wgState
	chanState
	timeState
	bubbleState
}

// thread is the model's record of one thread. Its only pointers are to
// cases, which are never modified, so that copying it copies it deeply.
type thread struct {
	finished   bool
	hasPending bool
	pending    Op
	detached   bool
	joined     bool

	// The second half of a two-event operation, which the thread must
	// report next (CondReacquire, BarrierLeave, GoRWLockDrain, WGWake,
	// ChanWake; 0 if none), with its object or cases; its primitive's
	// checkNext says what fits.
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

	// What primitives keep per thread, declared in their files.
	condThread
	barrierThread
	timeThread
	awaitThread
	bubbleThread
}

// clearNext ends a two-halved operation.
func (th *thread) clearNext() {
	th.next, th.nextObj, th.nextCases = 0, 0, nil
	th.parkedOp, th.woken, th.wakeCode, th.wakeClosed = 0, false, 0, false
}

// errNext is the error for op reported by thread tid (th), which must
// report th.next on th.nextObj.
func errNext(tid int, th *thread, op Op) error {
	return fmt.Errorf("syncmodel: thread %d must report %s on %#x next; got %s", tid, th.next, th.nextObj, op)
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
	// Stall is how long, in nanoseconds of virtual time, the thread could
	// have performed the operation before it did, while time passed (a
	// timer fired): a delay the execution needs of it (see SetMaxStall).
	Stall int64
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
	// At is the thread whose pending operation the misuse is placed at,
	// when it is not Tid (0 otherwise): a misuse of two operations that
	// nothing orders, committed by whichever of them runs second, is
	// placed at the same one in both orders, so that the two orders
	// report one bug (an Add from zero and a Wait of a WaitGroup: at the
	// Add).
	At int
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
	// Reads, for a thread that spins (What "spin": it waits for a write
	// after an iteration that changed nothing, see World.Await), is what
	// the iteration read.
	Reads []Span
}

// NewWorld returns the initial world: thread 1 exists and is live, with no
// pending operation yet, and there are no objects.
func NewWorld() *World {
	return &World{threads: make([]thread, 1, 4), timeState: timeState{maxStall: DefaultMaxStall}}
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
func (w *World) SetPending(tid int, op Op) error { return w.SetPendingRef(tid, &op) }

// SetPendingRef is SetPending with the operation given by reference (it is
// copied): a runtime's report is not copied once more on the way.
func (w *World) SetPendingRef(tid int, op *Op) error {
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
	}
	var err error
	if th.next != 0 {
		err = primOf(th.next).checkNext(w, tid, th, *op)
	} else {
		err = primOf(op.Kind).check(w, tid, th, *op)
	}
	if err != nil {
		return err
	}
	th.pending = *op
	th.hasPending = true
	th.awaiting, th.reads = false, nil
	w.timePending(th)
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
	th := w.thread(tid)
	if th == nil || !th.hasPending {
		return Op{}, false
	}
	op = th.pending
	w.annotate(tid, &th.pending, &op)
	return op, true
}

// annotate sets op.Eff to the annotation of thread tid's pending operation
// *pending, of which *op is a copy (see Annotated). The kinds whose
// annotation looks at the state are those StateAnnotated lists; the others
// are known at once.
func (w *World) annotate(tid int, pending, op *Op) {
	if in := &kindTable[pending.Kind]; in.stateEff {
		op.Eff = in.prim.effect(w, tid, pending)
	} else {
		op.Eff = Effect{Known: true}
	}
	if th := &w.threads[tid-1]; th.awaiting {
		op.Eff.Await = th.reads
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
	return w.enabledTh(tid, th)
}

// enabledTh is Enabled for the live thread th (thread tid), which has a
// pending operation, in a world that has not exited.
func (w *World) enabledTh(tid int, th *thread) bool {
	return !th.awaiting && primOf(th.pending.Kind).enabled(w, tid, &th.pending)
}

// enabled is Enabled for thread tid's pending operation *op (a pointer:
// it is called for every thread at every step, and an Op is big).
func (w *World) enabled(tid int, op *Op) bool {
	if w.threads[tid-1].awaiting {
		return false
	}
	return primOf(op.Kind).enabled(w, tid, op)
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
	if in := &kindTable[th.pending.Kind]; in.chooses {
		return in.prim.choices(w, tid, th)
	}
	return 0
}

// Blocked returns the live threads that have a pending operation that is not
// enabled, but a TimerWait (it waits for time, which always passes) and a
// thread that waits for a write after an iteration that changed nothing
// (Await: it spins, see Spinning), ascending. After an Exit it returns nil.
func (w *World) Blocked() []int {
	if w.exited {
		return nil
	}
	var ids []int
	for i := range w.threads {
		th := &w.threads[i]
		// A TimerWait not yet enabled waits for time, which passes: it
		// is not blocked.
		if !th.finished && th.hasPending && th.pending.Kind != TimerWait && !th.awaiting && !w.enabled(i+1, &th.pending) {
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
	// The operation is read where it is (an Op is big): no primitive
	// changes a pending operation, and exec may grow w.threads, so that
	// th is looked up again after it (the old list still holds the
	// operation as it was).
	w.misuseAt = 0
	res, msg, err := primOf(th.pending.Kind).exec(w, tid, &th.pending, choice)
	if err != nil {
		return Result{}, err
	}
	th = w.thread(tid)
	if msg != "" {
		return Result{}, &Misuse{Tid: tid, Op: th.pending, Msg: msg, At: w.misuseAt}
	}
	w.heat(tid, &th.pending, &res)
	if !th.finished {
		th.hasPending = false
		th.pending = Op{}
	}
	return res, nil
}

// WaitFor explains why thread tid cannot perform its pending operation. It
// returns the zero Wait if tid is not blocked.
func (w *World) WaitFor(tid int) Wait {
	th := w.thread(tid)
	if th == nil || th.finished || !th.hasPending || w.exited || w.enabled(tid, &th.pending) {
		return Wait{}
	}
	if th.awaiting {
		return awaitWait(th.reads)
	}
	return primOf(th.pending.Kind).waitFor(w, tid, &th.pending)
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
	for _, p := range families {
		p.clone(&c, w)
	}
	return &c
}

// cloneMap returns a copy of m with every value copied by clone; nil for
// nil.
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

// copyOf returns a pointer to a copy of *v: the clone of a record
// without slices or maps.
func copyOf[V any](v *V) *V {
	x := *v
	return &x
}

// keepMap returns m emptied, for a reset world to keep.
func keepMap[V any](m map[uint64]*V) map[uint64]*V {
	clear(m)
	return m
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
