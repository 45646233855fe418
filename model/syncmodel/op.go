// Package syncmodel is stdbg's single model of synchronization semantics.
//
// Every runtime (the C interposition library, the Go sthread package) reports
// the operation each thread is about to perform; this package decides whether
// that operation is enabled, what it does to the synchronization objects, what
// it returns, whether it is a misuse, and which operations depend on each
// other. Runtimes never duplicate these rules: they report and obey.
package syncmodel

import (
	"fmt"
	"strings"
)

// Kind is the kind of a visible operation. The numeric values are part of the
// wire protocol shared with the runtimes; never renumber an existing kind.
type Kind uint16

// Operation kinds. The comment after each kind says how Op's fields are used.
const (
	KindInvalid Kind = iota
	// Threads.
	ThreadCreate // Arg: 1 if the new thread starts detached. Result: the new thread id.
	ThreadJoin   // Arg: id of the thread joined.
	ThreadDetach // Arg: id of the thread detached.
	ThreadExit   // the thread is about to finish (returned or called pthread_exit).
	// Mutexes. Obj: address. Arg: mutex type (MutexNormal, MutexRecursive, MutexErrorCheck).
	MutexInit
	MutexLock
	MutexTrylock
	MutexTimedlock
	MutexUnlock
	MutexDestroy
	// Condition variables. Obj: condition; Obj2: mutex.
	CondInit
	CondWait      // releases Obj2 and starts waiting on Obj.
	CondReacquire // second half of a wait: Arg 1 if timed (may time out).
	CondSignal
	CondBroadcast
	CondDestroy
	// Counting semaphores. Obj: address. Arg (init): initial value.
	SemInit
	SemWait
	SemTrywait
	SemTimedwait
	SemPost
	SemGetvalue
	SemDestroy
	// Reader/writer locks. Obj: address.
	RWInit
	RWRdlock
	RWWrlock
	RWTryRdlock
	RWTryWrlock
	RWTimedRdlock
	RWTimedWrlock
	RWUnlock
	RWDestroy
	// Barriers. Obj: address. Arg (init): count.
	BarrierInit
	BarrierWait  // arrive; the last thread to arrive is released at once.
	BarrierLeave // second half of a wait for the threads that arrived earlier.
	BarrierDestroy
	// Spin locks. Obj: address.
	SpinInit
	SpinLock
	SpinTrylock
	SpinUnlock
	SpinDestroy
	// One-time initialisation. Obj: address of the once control.
	OnceBegin // Result 1: the caller runs the initialiser; 0: already done.
	OnceEnd
	// Scheduling hints and annotations.
	Yield
	Sleep
	Read   // Obj: address, Arg: size in bytes.
	Write  // Obj: address, Arg: size in bytes.
	Choose // Arg: number of values n. Result: the value chosen, 0..n-1.
	// Process exit. Arg: exit status.
	Exit

	// Go primitives, appended after the C ones (never renumber). The
	// blocking ones that Go parks on come in two halves: the first half
	// either completes or parks the thread, which must then report the
	// second half (its "wake"), enabled once another thread releases it.

	// Go mutexes (sync.Mutex). Obj: the mutex. Unlocking a mutex locked by
	// another thread is allowed; unlocking an unlocked one is a misuse;
	// locking a mutex the thread holds blocks for ever.
	GoMutexLock
	GoMutexTryLock // Result 1 if the lock was taken, 0 if not.
	GoMutexUnlock
	// Go reader/writer mutexes (sync.RWMutex). Obj: the mutex. A writer
	// that has announced itself blocks new readers.
	GoRWRLock
	GoRWTryRLock // Result 1 if the read lock was taken, 0 if not.
	GoRWRUnlock
	GoRWLock      // first half of Lock: takes writer exclusion and announces the writer.
	GoRWLockDrain // second half of Lock: waits until the readers have left.
	GoRWTryLock   // Result 1 if the write lock was taken, 0 if not.
	GoRWUnlock
	// Wait groups (sync.WaitGroup). Obj: the wait group.
	WGAdd  // Arg: the delta (Done is Add(-1)).
	WGWait // Result: WaitReturned, or WaitParked: the thread must report WGWake next.
	WGWake // second half of a Wait that parked: enabled once the counter reached 0.
	// Go condition variables (sync.Cond) on any Locker. Obj: the condition.
	// A wait on any Locker is GoCondWait, then the Locker's unlock, then
	// GoCondWake, then the Locker's lock. When the Locker is a Go mutex
	// known to the model, Obj2 is that mutex and the wait is two events,
	// as a C one is: GoCondWait registers and unlocks it, GoCondWake is
	// enabled once signalled and the mutex is free, and locks it. Signal
	// and Broadcast are CondSignal and CondBroadcast.
	GoCondWait // registers the waiter (and unlocks the mutex Obj2, if not 0).
	GoCondWake // waits to be signalled (and for the mutex Obj2, which it locks).
	// Channels. Obj: the channel, 0 for a nil channel. Arg: the channel's
	// capacity, with which the model creates a channel it has not seen.
	// Results are ChanResult values packed with ChanResult.Code.
	ChanMake  // a new channel with capacity Arg.
	ChanSend  // completes, or parks: the thread must report ChanWake next.
	ChanRecv  // completes, or parks: the thread must report ChanWake next.
	ChanClose // wakes the parked receivers (closed) and senders (misuse).
	ChanLen   // Result: the number of values in the buffer.
	// Select. Cases: the cases; Arg: 1 if there is a default case. When
	// several cases are ready, the choice among them is a step value (see
	// World.Choices and World.Execute).
	Select
	// Second half of a ChanSend, ChanRecv or Select that parked, with the
	// same Obj, Arg and Cases: enabled once another thread woke it.
	ChanWake

	// Virtual time. Arg: the virtual time, in nanoseconds, that the thread
	// sleeps until (time.Sleep, or a timer waiting to fire). It is enabled
	// when no other live thread has a pending TimerWait with an earlier
	// time: timers fire in the order of their times, but any amount of time
	// may pass between two other operations, so a timer firing races with
	// everything else. A timer's channel, if it has one, is its Obj. A
	// timer delivers its time in a Select of API APITimerFire right after
	// it fires: no time passes until that Select has run (see
	// World.Enabled).
	TimerWait

	// ThreadStart is a new thread's first operation: it starts running
	// its function, up to its first other operation. A thread's start is
	// a scheduling point of its own, so that its creator may run on
	// first, as it may in a real run.
	ThreadStart

	// Bubbles of testing/synctest (see bubble.go). Obj: the bubble (for
	// BubbleWait, the one the runtime takes the caller to belong to, for
	// its own use: the model knows the caller's).
	BubbleEnter // the root goroutine of a bubble joins it, first thing.
	BubbleWait  // synctest.Wait: enabled once every other goroutine of the caller's bubble is durably blocked.
	BubbleEnd   // synctest.Test waits for the goroutines of its bubble to end.
	kindCount
)

var kindNames = [...]string{
	KindInvalid:    "invalid",
	ThreadCreate:   "thread-create",
	ThreadJoin:     "thread-join",
	ThreadDetach:   "thread-detach",
	ThreadExit:     "thread-exit",
	MutexInit:      "mutex-init",
	MutexLock:      "mutex-lock",
	MutexTrylock:   "mutex-trylock",
	MutexTimedlock: "mutex-timedlock",
	MutexUnlock:    "mutex-unlock",
	MutexDestroy:   "mutex-destroy",
	CondInit:       "cond-init",
	CondWait:       "cond-wait",
	CondReacquire:  "cond-reacquire",
	CondSignal:     "cond-signal",
	CondBroadcast:  "cond-broadcast",
	CondDestroy:    "cond-destroy",
	SemInit:        "sem-init",
	SemWait:        "sem-wait",
	SemTrywait:     "sem-trywait",
	SemTimedwait:   "sem-timedwait",
	SemPost:        "sem-post",
	SemGetvalue:    "sem-getvalue",
	SemDestroy:     "sem-destroy",
	RWInit:         "rwlock-init",
	RWRdlock:       "rwlock-rdlock",
	RWWrlock:       "rwlock-wrlock",
	RWTryRdlock:    "rwlock-tryrdlock",
	RWTryWrlock:    "rwlock-trywrlock",
	RWTimedRdlock:  "rwlock-timedrdlock",
	RWTimedWrlock:  "rwlock-timedwrlock",
	RWUnlock:       "rwlock-unlock",
	RWDestroy:      "rwlock-destroy",
	BarrierInit:    "barrier-init",
	BarrierWait:    "barrier-wait",
	BarrierLeave:   "barrier-leave",
	BarrierDestroy: "barrier-destroy",
	SpinInit:       "spin-init",
	SpinLock:       "spin-lock",
	SpinTrylock:    "spin-trylock",
	SpinUnlock:     "spin-unlock",
	SpinDestroy:    "spin-destroy",
	OnceBegin:      "once-begin",
	OnceEnd:        "once-end",
	Yield:          "yield",
	Sleep:          "sleep",
	Read:           "read",
	Write:          "write",
	Choose:         "choose",
	Exit:           "exit",
	GoMutexLock:    "go-mutex-lock",
	GoMutexTryLock: "go-mutex-trylock",
	GoMutexUnlock:  "go-mutex-unlock",
	GoRWRLock:      "go-rwmutex-rlock",
	GoRWTryRLock:   "go-rwmutex-tryrlock",
	GoRWRUnlock:    "go-rwmutex-runlock",
	GoRWLock:       "go-rwmutex-lock",
	GoRWLockDrain:  "go-rwmutex-lock-drain",
	GoRWTryLock:    "go-rwmutex-trylock",
	GoRWUnlock:     "go-rwmutex-unlock",
	WGAdd:          "waitgroup-add",
	WGWait:         "waitgroup-wait",
	WGWake:         "waitgroup-wake",
	GoCondWait:     "go-cond-wait",
	GoCondWake:     "go-cond-wake",
	ChanMake:       "chan-make",
	ChanSend:       "chan-send",
	ChanRecv:       "chan-recv",
	ChanClose:      "chan-close",
	ChanLen:        "chan-len",
	Select:         "select",
	ChanWake:       "chan-wake",
	TimerWait:      "timer-wait",
	ThreadStart:    "thread-start",
	BubbleEnter:    "bubble-enter",
	BubbleWait:     "bubble-wait",
	BubbleEnd:      "bubble-end",
}

// NumKinds is one more than the largest valid Kind.
const NumKinds = int(kindCount)

// String returns the kind's name, e.g. "mutex-lock", or "kind(N)" for an
// unknown kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint16(k))
}

// Valid reports whether k is a known operation kind.
func (k Kind) Valid() bool { return k > KindInvalid && k < kindCount }

// Mutex types, as reported in Op.Arg of mutex operations. They match glibc's
// PTHREAD_MUTEX_NORMAL, _RECURSIVE and _ERRORCHECK values.
const (
	MutexNormal     = 0
	MutexRecursive  = 1
	MutexErrorCheck = 2
)

// Result codes returned to runtimes. They are Linux errno values so that the C
// library can return them unchanged; other runtimes map them.
const (
	OK        = 0
	EPERM     = 1
	EAGAIN    = 11
	EBUSY     = 16
	EINVAL    = 22
	EDEADLK   = 35
	ETIMEDOUT = 110
	// BarrierSerial is returned to the one thread that completes a barrier
	// (PTHREAD_BARRIER_SERIAL_THREAD).
	BarrierSerial = -1
	// SpuriousReturn is returned for a CondWait that returns at once
	// without a signal (World.SetSpuriousWakeups): the runtime returns 0
	// from the wait and reports no CondReacquire.
	SpuriousReturn = -2
	// GoPanics is returned for a Go operation that Go makes panic, with a
	// value a deferred recover may take: a WaitGroup's Add that takes the
	// counter below zero (the counter stays there, as Go leaves it), the
	// wake of a Wait whose group was reused before it returned. The
	// runtime raises the panic Go raises. (Channel operations say it with
	// ViaPanic. A fatal error of Go, such as the unlock of an unlocked
	// mutex, is a misuse: nothing recovers from it.)
	GoPanics = -3
)

// Op is a visible operation a thread is about to perform.
type Op struct {
	Kind Kind
	// API is the user-level function that performs the operation (for
	// display: pthread_mutex_lock, mtx_lock, ...).
	API API
	// Obj identifies the object operated on (its address for C targets); 0
	// when the kind has no object.
	Obj uint64
	// Obj2 is a second object: the mutex of a condition wait.
	Obj2 uint64
	// Arg is a kind-specific argument; see the Kind constants.
	Arg int64
	// Cases are the cases of a Select (and of the ChanWake that follows a
	// Select that parked), in the order written; nil for other kinds. The
	// model never modifies them, so an Op and its copies may share them.
	// The wire protocol does not carry them: only in-process runtimes
	// report selects for now.
	Cases []Case
	// Eff is what the operation does in the state where it is about to
	// run, as far as the dependency relation needs to know it: the world
	// fills it in (World.Annotated); runtimes leave it zero, and the wire
	// protocol does not carry it.
	Eff Effect
}

// Effect is the part of an operation's effect that depends on the state
// it runs in and that Dependent uses to tell operations apart that commute
// in that state: whom a channel operation completes with, and whether a
// buffered channel operation leaves its buffer strictly between empty and
// full. The zero Effect is what a runtime reports: nothing known, which
// Dependent treats conservatively.
type Effect struct {
	// Known reports that the world filled the effect in.
	Known bool
	// Partner is the thread whose parked operation this one completes:
	// the sender whose value a receive takes (or moves into the buffer),
	// or the select a send or receive completes with. 0 if none.
	Partner int
	// Links are the channels of the parked select this operation
	// completes with (nil if none): taking the select disables its other
	// cases, so the operation touches all of them.
	Links []uint64
	// Ends are the parked threads whose operation this one may complete
	// or end besides Partner (nil if none): for a select, the parked
	// partner of each of its ready cases (which case proceeds is a choice
	// made when it runs); for a close, every thread parked on the channel.
	// A ChanWake of a thread not among them (nor Partner) is independent
	// of the operation: the wake's thread was woken already, or is parked
	// where the operation cannot reach it.
	Ends []int
	// Mid reports a send into a buffer or a receive from it that finds
	// the buffer neither empty nor full, with no sender waiting and no
	// select parked on the channel.
	Mid bool
	// Parks reports a send that finds no receiver and no room: it parks
	// (offers its value) until a receiver takes it.
	Parks bool
	// Counter is the counter of a wait group before a WGAdd.
	Counter int64
	// Own reports a GoRWRUnlock by a thread that holds a read lock of
	// its own (Go read locks have no owner: one that does not releases
	// another reader's).
	Own bool
	// Writer reports an RWUnlock by the thread that holds the rwlock for
	// writing: it releases the write lock.
	Writer bool
	// Await, for the pending operation of a thread that waits for a
	// write after an iteration that changed nothing (World.Await), is
	// what the iteration read: an operation that may write one of them
	// enables the thread, and so depends on its operation.
	Await []Span
}

// String returns the operation as a call, e.g. "pthread_mutex_lock(0x601040)",
// using the kind's name when the API is not known.
func (o Op) String() string {
	name := o.API.String()
	if o.API == APINone {
		name = o.Kind.String()
	}
	if o.Cases != nil || o.Kind == Select {
		var b strings.Builder
		b.WriteString(name + "(")
		for i, c := range o.Cases {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(c.String())
		}
		if o.Arg == 1 {
			if len(o.Cases) > 0 {
				b.WriteString(", ")
			}
			b.WriteString("default")
		}
		return b.String() + ")"
	}
	switch {
	case o.Obj2 != 0:
		return fmt.Sprintf("%s(%#x, %#x)", name, o.Obj, o.Obj2)
	case o.Obj != 0:
		return fmt.Sprintf("%s(%#x)", name, o.Obj)
	}
	return name + "()"
}
