package syncmodel

// opClass groups kinds by what they touch, for Dependent.
type opClass int

const (
	classSync   opClass = iota // synchronization objects: Obj, and Obj2 of a condition wait
	classThread                // thread ids (create, join, detach, exit)
	classSched                 // Yield, Sleep: no address
	classMem                   // Read, Write: byte range [Obj, Obj+Arg)
	classChoose                // Choose, ThreadStart: local to the thread
	classExit                  // Exit: ends everything
)

func classOf(k Kind) opClass {
	switch k {
	case ThreadCreate, ThreadJoin, ThreadDetach, ThreadExit:
		return classThread
	case Yield, Sleep:
		return classSched
	case Read, Write:
		return classMem
	case Choose, ThreadStart:
		return classChoose
	case Exit:
		return classExit
	}
	return classSync
}

// Dependent reports whether operation a of thread ta and operation b of
// thread tb may fail to commute: executing them in either order from the
// same state may lead to different states or results, or one may enable or
// disable the other. Partial-order reduction only reorders independent
// operations, so the relation errs on the side of dependence. It is
// symmetric, and it is:
//
//   - Same thread (ta == tb): always dependent. Invalid kinds: always
//     dependent.
//   - Exit: dependent on every operation.
//   - TimerWait: dependent on every operation (virtual time passes
//     between any two operations, and timers enable one another in the
//     order of their times).
//   - Choose: independent of every operation of another thread but Exit (the
//     value chosen is local to the thread).
//   - ThreadStart: dependent on the Yields and Sleeps of other threads (and
//     Exit), independent of the rest. A start changes no modelled state,
//     but it stands for the code its thread runs before its first
//     operation, as a Yield stands for the memory a polling loop reads:
//     two threads that poll and start are ordered both ways. Other memory
//     is not modelled (annotated, it is a Read or Write, ordered where it
//     is).
//   - Synchronization operations (mutexes, spin locks, condition variables,
//     semaphores, rwlocks, barriers, once, and Go's mutexes, RWMutexes, wait
//     groups, condition variables and channels): dependent iff they use a
//     common object, unless both are SemGetvalue or both are ChanLen. The objects an operation uses are
//     its Obj (even when 0: the model keys objects by Obj whatever its value)
//     and, for CondWait and CondReacquire, and GoCondWait and GoCondWake
//     with a mutex, its Obj2 (the mutex); Obj2 of the
//     other kinds is not used by the model and is ignored. A condition wait
//     thus depends on the operations on its mutex as well as on those on its
//     condition variable. SemGetvalue is the only kind that never writes an
//     object's state: every other kind writes, or writes under some state
//     (a trylock that fails, a signal with no waiter and a once that is done
//     leave the state unchanged, but whether they do depends on the state,
//     and that state is what the other operation may change). Addresses of
//     different primitives share one space, so a mutex and a condition
//     variable at the same address are conservatively dependent.
//   - Channel operations: see chanDependent. Operations on different
//     channels are independent unless a parked select links them (Op.Eff
//     Links).
//   - Wait groups: two WGAdd are independent when both deltas have the same
//     sign, or when the counter stays non-negative in either order (see
//     wgAddsDependent); two WGWait are independent; any other pair on the
//     same group is dependent.
//   - Read and Write: two accesses are dependent iff their byte ranges
//     [Obj, Obj+Arg) overlap and at least one is a Write (a size below 1 is
//     taken as 1). An access and a synchronization operation are dependent
//     iff the range contains one of the operation's objects (the model does
//     not know the sizes of synchronization objects, so an access to the
//     inside of an object, past its first byte, is not seen as touching it).
//   - Yield and Sleep: dependent on every Yield, Sleep, Read and Write of
//     another thread, independent of the rest (but Exit).
//   - Thread operations: a ThreadJoin or ThreadDetach of thread t (Arg t)
//     depends on t's ThreadExit (the one performed by thread t) and on every
//     other ThreadJoin or ThreadDetach of t. Two ThreadCreates are dependent,
//     because the world numbers new threads in creation order, so swapping
//     two creations swaps the ids of the threads created. A ThreadCreate is
//     independent of every other operation (but Exit): the operations of the
//     thread it creates are not yet pending. Two ThreadExits are
//     independent. Thread operations are independent of synchronization,
//     memory and scheduling operations: a thread that finishes holding a
//     mutex keeps it.
func Dependent(ta int, a Op, tb int, b Op) bool {
	return dependent(ta, a, tb, b, false)
}

// DependentInOrder is Dependent for two operations known to run in this
// order, a first, in one execution, each annotated (Op.Eff) in the state
// it ran in (or, for b, in which it is pending): the two events of a
// trace, or an event and an operation pending after it. It is Dependent
// but for a wait group's decrement followed by an increment, which always
// commute: moving the increment first only raises the counter the
// decrement finds. (Dependent must decide that pair without knowing the
// order, from annotations that cannot tell it, and so keeps it dependent
// when the decrement brought the counter below the increment's delta.)
func DependentInOrder(ta int, a Op, tb int, b Op) bool {
	return dependent(ta, a, tb, b, true)
}

func dependent(ta int, a Op, tb int, b Op, ordered bool) bool {
	if ordered && ta != tb && a.Kind == WGAdd && b.Kind == WGAdd && a.Arg < 0 && b.Arg > 0 {
		return false
	}
	if ta == tb || !a.Kind.Valid() || !b.Kind.Valid() || a.Kind == TimerWait || b.Kind == TimerWait {
		return true
	}
	ca, cb := classOf(a.Kind), classOf(b.Kind)
	if ca > cb {
		ta, a, ca, tb, b, cb = tb, b, cb, ta, a, ca
	}
	// Now ca <= cb in the order classSync < classThread < classSched <
	// classMem < classChoose < classExit.
	switch {
	case cb == classExit:
		return true
	case cb == classChoose:
		// A start stands for the code its thread runs before its first
		// operation, as a Yield stands for a polling loop's: ordered
		// against other threads' Yields and Sleeps only.
		return b.Kind == ThreadStart && ca == classSched
	case ca == classSync && cb == classSync:
		switch {
		case a.Kind == SemGetvalue && b.Kind == SemGetvalue:
			return false
		case isChanKind(a.Kind) && isChanKind(b.Kind):
			return chanDependent(ta, a, tb, b)
		case a.Kind == WGAdd && b.Kind == WGAdd:
			return a.Obj == b.Obj && wgAddsDependent(a, b)
		case a.Kind == WGWait && b.Kind == WGWait:
			return false
		case isGoReaderSide(a) && (isGoReaderSide(b) || isGoWriterWait(b)) || isGoWriterWait(a) && isGoReaderSide(b):
			return a.Obj == b.Obj && goRWDependent(a, b)
		case a.Kind == GoCondWake:
			return goCondWakeDependent(a, tb, b)
		case b.Kind == GoCondWake:
			return goCondWakeDependent(b, ta, a)
		}
		return sharesObject(a, b)
	case ca == classSync && cb == classMem:
		for i, n := 0, numObjects(a); i < n; i++ {
			if inRange(objectAt(a, i), b) {
				return true
			}
		}
		return false
	case ca == classThread && cb == classThread:
		return threadDependent(ta, a, tb, b)
	case ca == classSched:
		return cb == classSched || cb == classMem
	case ca == classMem && cb == classMem:
		return (a.Kind == Write || b.Kind == Write) && overlap(a, b)
	}
	// Sync or thread against thread, scheduling or memory.
	return false
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
func goCondWakeDependent(wake Op, t int, op Op) bool {
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

// isGoReaderSide reports the operations of a Go RWMutex's readers:
// RLock, TryRLock and RUnlock.
func isGoReaderSide(op Op) bool {
	return op.Kind == GoRWRLock || op.Kind == GoRWTryRLock || op.Kind == GoRWRUnlock
}

// isGoWriterWait reports the two halves of a Go RWMutex's Lock: the
// announcement and the wait for the readers to leave.
func isGoWriterWait(op Op) bool { return op.Kind == GoRWLock || op.Kind == GoRWLockDrain }

// goRWDependent decides two operations on one Go RWMutex, of which at
// least one is a reader's and the other a reader's or one of the halves of
// a writer's Lock. Readers take and release read locks of their own: two
// RLocks (or TryRLocks) only need no writer to have announced itself and
// each count their own lock, and an RUnlock that releases its thread's own
// read lock (Eff.Own) changes no other thread's count and no writer. So
// they all commute, and such an RUnlock commutes with an announcement too.
// An announcement disables RLock and changes what TryRLock returns:
// dependent. The drain waits for the readers to leave: an RUnlock may
// enable it (dependent); an RLock is never enabled beside it (the writer
// has announced itself) and a TryRLock fails before and after it, so they
// commute. An RUnlock without a read lock of its own releases another
// reader's, or is a misuse: dependent on every reader.
func goRWDependent(a, b Op) bool {
	if a.Kind == GoRWRUnlock && !(a.Eff.Known && a.Eff.Own) || b.Kind == GoRWRUnlock && !(b.Eff.Known && b.Eff.Own) {
		return true
	}
	switch {
	case a.Kind == GoRWLock || b.Kind == GoRWLock:
		// The other is a reader's: only its own RUnlock commutes.
		return a.Kind != GoRWRUnlock && b.Kind != GoRWRUnlock
	case a.Kind == GoRWLockDrain || b.Kind == GoRWLockDrain:
		return a.Kind == GoRWRUnlock || b.Kind == GoRWRUnlock
	}
	return false
}

// numObjects returns how many objects a synchronization operation uses:
// Obj, which is an object even when 0 (the model keys objects by Obj
// whatever its value), and Obj2 for the two halves of a condition wait, the
// only kinds that use it; for a Select (and the ChanWake of a Select), the
// channels of its cases instead. objectAt returns the i-th. Dependent is
// called for every pair of events a reducing search compares, so neither
// allocates.
func numObjects(op Op) int {
	switch {
	case op.Kind == CondWait || op.Kind == CondReacquire:
		return 2
	case (op.Kind == GoCondWait || op.Kind == GoCondWake) && op.Obj2 != 0:
		return 2
	case op.Kind == Select || op.Kind == ChanWake && op.Cases != nil:
		return len(op.Cases)
	}
	return 1
}

func objectAt(op Op, i int) uint64 {
	switch {
	case op.Kind == CondWait || op.Kind == CondReacquire,
		(op.Kind == GoCondWait || op.Kind == GoCondWake) && op.Obj2 != 0:
		if i == 1 {
			return op.Obj2
		}
		return op.Obj
	case op.Kind == Select || op.Kind == ChanWake && op.Cases != nil:
		return op.Cases[i].Chan
	}
	return op.Obj
}

// usesObject reports whether synchronization operation op uses object x.
func usesObject(op Op, x uint64) bool {
	for i, n := 0, numObjects(op); i < n; i++ {
		if objectAt(op, i) == x {
			return true
		}
	}
	return false
}

// sharesObject reports whether two synchronization operations use a common
// object.
func sharesObject(a, b Op) bool {
	for i, n := 0, numObjects(a); i < n; i++ {
		if usesObject(b, objectAt(a, i)) {
			return true
		}
	}
	return false
}

// last returns the address of the last byte of a Read or Write, saturating
// at the top of the address space.
func last(m Op) uint64 {
	if m.Arg <= 1 {
		return m.Obj
	}
	if l := m.Obj + uint64(m.Arg-1); l >= m.Obj {
		return l
	}
	return ^uint64(0)
}

func inRange(addr uint64, m Op) bool {
	return addr >= m.Obj && addr <= last(m)
}

func overlap(a, b Op) bool {
	return a.Obj <= last(b) && b.Obj <= last(a)
}

func threadDependent(ta int, a Op, tb int, b Op) bool {
	switch {
	case a.Kind == ThreadCreate && b.Kind == ThreadCreate:
		return true
	case a.Kind == ThreadCreate || b.Kind == ThreadCreate:
		return false
	case a.Kind == ThreadExit && b.Kind == ThreadExit:
		return false
	case a.Kind == ThreadExit:
		return b.Arg == int64(ta)
	case b.Kind == ThreadExit:
		return a.Arg == int64(tb)
	}
	// Both are joins or detaches.
	return a.Arg == b.Arg
}

// MustPrecede reports whether operation b of thread tb can never be
// performed while operation a of another thread ta is still to come, when a
// and b are of the kinds below on the same object: in every state where
// thread ta can perform a without a misuse, b is disabled. Then b depends on
// a and cannot be moved before it: a reducing search need not try.
//
//   - a thread's ThreadExit, and a ThreadJoin of that thread;
//   - the unlock of a mutex or spin lock (or the release of the mutex by a
//     condition wait, C or Go), and a lock of it that waits: MutexLock,
//     SpinLock, GoMutexLock (the mutex is held until then);
//   - an RWUnlock (the lock is held, for reading or writing) and an
//     RWWrlock; an RWUnlock that releases the write lock (Eff.Writer) and
//     an RWRdlock; a writer's GoRWUnlock and a GoRWLock or GoRWRLock; a
//     GoRWRUnlock and a GoRWLockDrain;
//   - OnceEnd, and a OnceBegin (the initialisation is under way until then);
//   - a Done (WGAdd with a negative delta), and a WGWait of its group (the
//     counter is above zero until then);
//   - an unbuffered send that parked, and the receive that took its value
//     (Eff.Partner); a channel operation, and a ChanWake it depends on (it
//     completed the parked operation, or it commutes with the wake).
//
// It is false for every other pair: semaphores, condition signals, barriers,
// wait groups and channels can be ready for other reasons.
func MustPrecede(ta int, a Op, tb int, b Op) bool {
	if ta == tb {
		return false
	}
	switch a.Kind {
	case ThreadExit:
		return b.Kind == ThreadJoin && b.Arg == int64(ta)
	case MutexUnlock:
		return b.Kind == MutexLock && b.Obj == a.Obj
	case CondWait:
		return b.Kind == MutexLock && b.Obj == a.Obj2
	case SpinUnlock:
		return b.Kind == SpinLock && b.Obj == a.Obj
	case GoMutexUnlock:
		return b.Kind == GoMutexLock && b.Obj == a.Obj
	case GoCondWait:
		return b.Kind == GoMutexLock && a.Obj2 != 0 && b.Obj == a.Obj2
	case RWUnlock:
		// Any unlock for a waiting writer; a writer's unlock for a
		// waiting reader too (a read lock does not keep readers out).
		return (b.Kind == RWWrlock || b.Kind == RWRdlock && a.Eff.Known && a.Eff.Writer) && b.Obj == a.Obj
	case GoRWUnlock:
		return (b.Kind == GoRWLock || b.Kind == GoRWRLock) && b.Obj == a.Obj
	case GoRWRUnlock:
		return b.Kind == GoRWLockDrain && b.Obj == a.Obj
	case OnceEnd:
		return b.Kind == OnceBegin && b.Obj == a.Obj
	case WGAdd:
		return b.Kind == WGWait && b.Obj == a.Obj && a.Arg < 0
	case ChanSend:
		// The receive took this send's parked value on an unbuffered
		// channel: it could not run before the send offered it.
		return b.Kind == ChanRecv && b.Obj == a.Obj && a.Arg == 0 && a.Eff.Parks && b.Eff.Partner == ta
	}
	if b.Kind == ChanWake {
		// A wake changes nothing but lets its thread go on: the
		// channel operation it depends on is the one that completed
		// the parked operation (or a close), which comes before it;
		// with any other it commutes.
		return isChanKind(a.Kind)
	}
	return false
}

// chanObjects calls f with each channel an operation touches: its channel
// or the channels of its cases, and the channels of the parked select it
// completes with (Eff.Links). It stops when f returns true.
func chanAny(op Op, f func(uint64) bool) bool {
	for i, n := 0, numObjects(op); i < n; i++ {
		if f(objectAt(op, i)) {
			return true
		}
	}
	for _, c := range op.Eff.Links {
		if f(c) {
			return true
		}
	}
	return false
}

func chanShare(a, b Op) bool {
	return chanAny(a, func(x uint64) bool { return chanAny(b, func(y uint64) bool { return x == y }) })
}

// chanDependent decides the dependency of two channel operations of
// different threads, using their effects in the state where they run
// (Op.Eff) when the world filled them in:
//
//   - Operations on channels they do not share (counting the channels of a
//     parked select an operation completes with) are independent.
//   - Two ChanLen are independent; two ChanWake are independent (a wake
//     only lets its own thread go on).
//   - A ChanWake of thread t depends only on the operation that completed
//     t's parked operation (Eff.Partner t) and on closes of its channels.
//   - A receive does not park (it waits, disabled, for a value), so an
//     unbuffered send parks and the receive that takes its value completes
//     it: the send, the receive and the sender's wake are the rendezvous,
//     in the one order possible. A parked send and a receive that takes
//     another sender's value commute (senders are served in order).
//   - A send into a buffer and a receive from it commute when both find the
//     buffer neither empty nor full (Eff.Mid).
//   - Any other pair on a common channel is dependent: two sends, two
//     receives, closes, makes, selects, and lengths against the rest.
func chanDependent(ta int, a Op, tb int, b Op) bool {
	if a.Kind == ChanLen && b.Kind == ChanLen || a.Kind == ChanWake && b.Kind == ChanWake {
		return false
	}
	if !chanShare(a, b) {
		return false
	}
	if b.Kind == ChanWake {
		ta, a, tb, b = tb, b, ta, a
	}
	if a.Kind == ChanWake {
		return b.Kind == ChanClose || b.Kind == ChanMake || !b.Eff.Known || b.Eff.Partner == ta
	}
	if b.Kind == ChanSend {
		ta, a, tb, b = tb, b, ta, a
	}
	if a.Kind != ChanSend || b.Kind != ChanRecv || !a.Eff.Known || !b.Eff.Known {
		return true
	}
	switch {
	case a.Eff.Mid && b.Eff.Mid:
		return false
	case a.Eff.Parks && b.Eff.Partner != 0 && b.Eff.Partner != ta:
		return false
	}
	return true
}

// SharesObject reports whether two operations use a common
// synchronization object or channel (for a Select, any of its cases'
// channels). A search uses it to order a misuse after every earlier
// operation on its object: a misuse ends the execution, so which of two
// otherwise commuting operations commits it decides where it is reported.
func SharesObject(a, b Op) bool {
	if classOf(a.Kind) != classSync || classOf(b.Kind) != classSync {
		return false
	}
	return chanShare(a, b)
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
func wgAddsDependent(a, b Op) bool {
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
