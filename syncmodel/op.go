// Package syncmodel is stdbg's single model of synchronization semantics.
//
// Every runtime (the C interposition library, the Go sthread package) reports
// the operation each thread is about to perform; this package decides whether
// that operation is enabled, what it does to the synchronization objects, what
// it returns, whether it is a misuse, and which operations depend on each
// other. Runtimes never duplicate these rules: they report and obey.
package syncmodel

import "fmt"

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
}

// String returns the operation as a call, e.g. "pthread_mutex_lock(0x601040)",
// using the kind's name when the API is not known.
func (o Op) String() string {
	name := o.API.String()
	if o.API == APINone {
		name = o.Kind.String()
	}
	switch {
	case o.Obj2 != 0:
		return fmt.Sprintf("%s(%#x, %#x)", name, o.Obj, o.Obj2)
	case o.Obj != 0:
		return fmt.Sprintf("%s(%#x)", name, o.Obj)
	}
	return name + "()"
}
