package syncmodel

// The dependency relation, and the rules that cross primitives: classes
// of kinds, memory against objects, exit and time against everything. The
// relation between two operations of one primitive is that primitive's
// (its dependent and mustPrecede methods).

// opClass groups kinds by what they touch, for Dependent.
type opClass uint8

const (
	classSync   opClass = iota // synchronization objects: Obj, and Obj2 of a condition wait
	classThread                // thread ids (create, join, detach, exit)
	classSched                 // Yield, Sleep: no address
	classMem                   // Read, Write: byte range [Obj, Obj+Arg)
	classStart                 // ThreadStart: the code before the thread's first operation
	classLocal                 // Choose: local to the thread
	classExit                  // Exit: ends everything
)

// objUse says which objects an operation of a kind uses (numObjects).
type objUse uint8

const (
	objObj      objUse = iota // Obj, even when 0
	objObj2                   // Obj and Obj2 (a C condition wait and its mutex)
	objObj2Set                // Obj, and Obj2 when not 0 (a Go condition wait and its Mutex)
	objCases                  // the channels of Cases (Select)
	objCasesSet               // the channels of Cases when not nil, else Obj (ChanWake)
)

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
//     common object, unless both are operations of one primitive that
//     commute on it (its dependent method: two SemGetvalue, two ChanLen, and
//     the cases below). The objects an operation uses are
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
//     variable at the same address are conservatively dependent: two
//     operations of different primitives are dependent iff they use a
//     common object.
//   - Condition variables: the wake of a Go condition wait that was
//     signalled commutes with other waiters' registrations and wakes, and
//     with the signals of other threads than its signaller (see
//     goCondWakeDependent).
//   - Go RWMutexes: readers commute with one another (see goRWDependent).
//   - Channel operations: see chanPrim.dependent. Operations on different
//     channels are independent unless a parked select links them (Op.Eff
//     Links).
//   - Wait groups: two WGAdd are independent when both are increments, or
//     when the counter stays non-negative in either order (see
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
//   - A thread that waits for a write after an iteration that changed
//     nothing (World.Await): its pending operation, annotated with what the
//     iteration read (Effect.Await), depends on every operation that may
//     write one of them (a memory write over it, any synchronization
//     operation on it), which enables it again.
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
	return dependent(ta, &a, tb, &b, false)
}

// DependentRef is Dependent for operations given by reference: a search
// that compares many pairs of operations (an Op is big) copies none.
func DependentRef(ta int, a *Op, tb int, b *Op) bool {
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
	return dependent(ta, &a, tb, &b, true)
}

// DependentInOrderRef is DependentInOrder for operations given by
// reference (see DependentRef).
func DependentInOrderRef(ta int, a *Op, tb int, b *Op) bool {
	return dependent(ta, a, tb, b, true)
}

func dependent(ta int, a *Op, tb int, b *Op, ordered bool) bool {
	if ta == tb || !a.Kind.Valid() || !b.Kind.Valid() || a.Kind == TimerWait || b.Kind == TimerWait {
		return true
	}
	if (a.Eff.Await != nil || b.Eff.Await != nil) && awaitDependent(a, b) {
		return true
	}
	ia, ib := &kindTable[a.Kind], &kindTable[b.Kind]
	ca, cb := ia.class, ib.class
	if ca > cb {
		// Decide with ca <= cb, in the order of the classes.
		ta, a, ca, tb, b, cb = tb, b, cb, ta, a, ca
	}
	switch {
	case cb == classExit:
		return true
	case cb == classLocal:
		return false
	case cb == classStart:
		// A start stands for the code its thread runs before its first
		// operation, as a Yield stands for a polling loop's: ordered
		// against other threads' Yields and Sleeps only.
		return ca == classSched
	case ca == classSync && cb == classMem:
		for i, n := 0, numObjects(a); i < n; i++ {
			if inRange(objectAt(a, i), b) {
				return true
			}
		}
		return false
	case ca == classSched:
		return cb == classSched || cb == classMem
	case ca != cb:
		// Sync or thread against thread or memory.
		return false
	case ia.fam != ib.fam:
		// Synchronization operations of two primitives.
		return sharesObject(a, b)
	}
	// Two operations of one primitive, of one class.
	return ia.prim.dependent(ta, a, tb, b, ordered)
}

// numObjects returns how many objects a synchronization operation uses
// (kindSpec.objects): Obj, which is an object even when 0 (the model keys
// objects by Obj whatever its value), and Obj2 for the two halves of a
// condition wait, the only kinds that use it; for a Select (and the
// ChanWake of a Select), the channels of its cases instead. objectAt
// returns the i-th. Dependent is called for every pair of events a
// reducing search compares, so neither allocates.
func numObjects(op *Op) int {
	switch infoOf(op.Kind).objects {
	case objObj2:
		return 2
	case objObj2Set:
		if op.Obj2 != 0 {
			return 2
		}
	case objCases:
		return len(op.Cases)
	case objCasesSet:
		if op.Cases != nil {
			return len(op.Cases)
		}
	}
	return 1
}

func objectAt(op *Op, i int) uint64 {
	switch infoOf(op.Kind).objects {
	case objObj2, objObj2Set:
		if i == 1 {
			return op.Obj2
		}
	case objCases:
		return op.Cases[i].Chan
	case objCasesSet:
		if op.Cases != nil {
			return op.Cases[i].Chan
		}
	}
	return op.Obj
}

// usesObject reports whether synchronization operation op uses object x.
func usesObject(op *Op, x uint64) bool {
	for i, n := 0, numObjects(op); i < n; i++ {
		if objectAt(op, i) == x {
			return true
		}
	}
	return false
}

// sharesObject reports whether two synchronization operations use a common
// object.
func sharesObject(a, b *Op) bool {
	for i, n := 0, numObjects(a); i < n; i++ {
		if usesObject(b, objectAt(a, i)) {
			return true
		}
	}
	return false
}

// touches calls f with each object an operation touches: those it uses
// and the channels of the parked select it completes with (Eff.Links). It
// stops when f returns true.
func touches(op *Op, f func(uint64) bool) bool {
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

// touchShare reports whether two operations touch a common object.
func touchShare(a, b *Op) bool {
	return touches(a, func(x uint64) bool { return touches(b, func(y uint64) bool { return x == y }) })
}

// last returns the address of the last byte of a Read or Write, saturating
// at the top of the address space.
func last(m *Op) uint64 {
	if m.Arg <= 1 {
		return m.Obj
	}
	if l := m.Obj + uint64(m.Arg-1); l >= m.Obj {
		return l
	}
	return ^uint64(0)
}

func inRange(addr uint64, m *Op) bool {
	return addr >= m.Obj && addr <= last(m)
}

func overlap(a, b *Op) bool {
	return a.Obj <= last(b) && b.Obj <= last(a)
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
// wait groups and channels can be ready for other reasons. Each primitive
// says which of its operations must precede what (its mustPrecede method).
func MustPrecede(ta int, a Op, tb int, b Op) bool {
	return MustPrecedeRef(ta, &a, tb, &b)
}

// MustPrecedeRef is MustPrecede for operations given by reference (see
// DependentRef).
func MustPrecedeRef(ta int, a *Op, tb int, b *Op) bool {
	if ta == tb || !a.Kind.Valid() || !kindTable[a.Kind].precedes {
		return false
	}
	return primOf(a.Kind).mustPrecede(ta, a, tb, b)
}

// SharesObject reports whether two operations use a common
// synchronization object or channel (for a Select, any of its cases'
// channels). A search uses it to order a misuse after every earlier
// operation on its object: a misuse ends the execution, so which of two
// otherwise commuting operations commits it decides where it is reported.
func SharesObject(a, b Op) bool {
	if infoOf(a.Kind).class != classSync || infoOf(b.Kind).class != classSync {
		return false
	}
	return touchShare(&a, &b)
}
