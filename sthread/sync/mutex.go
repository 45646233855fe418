package sync

import (
	stdsync "sync"
	"unsafe"

	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// A Locker represents an object that can be locked and unlocked: a Mutex,
// an RWMutex, the RLocker of an RWMutex, or any sync.Locker.
type Locker = stdsync.Locker

// Mutex is a mutual exclusion lock, a drop-in replacement for sync.Mutex:
// the zero value is unlocked and it must not be copied after first use.
// Under a check its Lock, TryLock and Unlock are scheduling points; unlocking
// an unlocked Mutex is reported as a misuse, and locking a Mutex the
// goroutine holds blocks it for ever, as in Go.
//
// It has the size and alignment of sync.Mutex: it holds one, the real
// lock, and under a check its registration is kept beside it (see
// rt.EnterAt).
type Mutex struct {
	mu stdsync.Mutex
}

// Lock locks m, waiting until it is available.
//
//go:norace
func (m *Mutex) Lock() {
	if rt.Hooked() && m.checked(syncmodel.GoMutexLock, syncmodel.APIGoMutexLock, nil) >= 0 {
		return
	}
	m.mu.Lock()
}

// TryLock tries to lock m and reports whether it succeeded.
//
//go:norace
func (m *Mutex) TryLock() bool {
	if rt.Hooked() {
		if c := m.checked(syncmodel.GoMutexTryLock, syncmodel.APIGoMutexTryLock, nil); c >= 0 {
			return c == 1
		}
	}
	return m.mu.TryLock()
}

// Unlock unlocks m. Any goroutine may unlock a locked Mutex.
//
//go:norace
func (m *Mutex) Unlock() {
	if rt.Hooked() && m.checked(syncmodel.GoMutexUnlock, syncmodel.APIGoMutexUnlock, nil) >= 0 {
		return
	}
	m.mu.Unlock()
}

// checked performs an operation of m under the checker and returns its
// result, or -1 when it passes through. pcs, if not nil, are the frames to
// report; else the caller's caller is.
//
//go:norace
func (m *Mutex) checked(k syncmodel.Kind, api syncmodel.API, pcs []uintptr) int64 {
	return point(rt.FamMutex, unsafe.Pointer(m), k, api, pcs)
}

// point performs operation k (called api) on the object at addr, of
// family fam (registered by its address), under the checker and returns its result, or -1 when it
// passes through. pcs, if not nil, are the frames to report; else the
// user's code that called the sthread function under way is.
//
//go:norace
func point(fam rt.Family, addr unsafe.Pointer, k syncmodel.Kind, api syncmodel.API, pcs []uintptr) int64 {
	th, id, ok := rt.EnterAt(fam, addr)
	if !ok {
		return -1
	}
	op := syncmodel.Op{Kind: k, API: api, Obj: id}
	if pcs != nil {
		return th.PointAt(op, pcs)
	}
	return th.Point(op)
}

// RWMutex is a reader/writer mutual exclusion lock, a drop-in replacement
// for sync.RWMutex: the zero value is unlocked and it must not be copied
// after first use. Under a check a goroutine calling Lock first announces
// itself, which blocks new readers, then waits for the readers to leave:
// two scheduling points, so that a recursive RLock behind a waiting writer
// deadlocks as in Go. RUnlock and Unlock of an RWMutex not locked that way
// are misuses.
//
// It has the size and alignment of sync.RWMutex, which it holds.
type RWMutex struct {
	mu stdsync.RWMutex
}

// RLock locks rw for reading.
//
//go:norace
func (rw *RWMutex) RLock() {
	if rt.Hooked() && rw.checked(syncmodel.GoRWRLock, syncmodel.APIGoRWRLock, nil) >= 0 {
		return
	}
	rw.mu.RLock()
}

// TryRLock tries to lock rw for reading and reports whether it succeeded.
//
//go:norace
func (rw *RWMutex) TryRLock() bool {
	if rt.Hooked() {
		if c := rw.checked(syncmodel.GoRWTryRLock, syncmodel.APIGoRWTryRLock, nil); c >= 0 {
			return c == 1
		}
	}
	return rw.mu.TryRLock()
}

// RUnlock undoes a single RLock call.
//
//go:norace
func (rw *RWMutex) RUnlock() {
	if rt.Hooked() && rw.checked(syncmodel.GoRWRUnlock, syncmodel.APIGoRWRUnlock, nil) >= 0 {
		return
	}
	rw.mu.RUnlock()
}

// Lock locks rw for writing.
//
//go:norace
func (rw *RWMutex) Lock() {
	if rt.Hooked() && rw.lockChecked(nil) {
		return
	}
	rw.mu.Lock()
}

// TryLock tries to lock rw for writing and reports whether it succeeded.
//
//go:norace
func (rw *RWMutex) TryLock() bool {
	if rt.Hooked() {
		if c := rw.checked(syncmodel.GoRWTryLock, syncmodel.APIGoRWTryLock, nil); c >= 0 {
			return c == 1
		}
	}
	return rw.mu.TryLock()
}

// Unlock unlocks rw for writing.
//
//go:norace
func (rw *RWMutex) Unlock() {
	if rt.Hooked() && rw.checked(syncmodel.GoRWUnlock, syncmodel.APIGoRWUnlock, nil) >= 0 {
		return
	}
	rw.mu.Unlock()
}

// RLocker returns a Locker whose Lock and Unlock call rw.RLock and
// rw.RUnlock.
//
//go:norace
func (rw *RWMutex) RLocker() Locker { return (*rlocker)(rw) }

type rlocker RWMutex

//go:norace
func (r *rlocker) Lock() { (*RWMutex)(r).RLock() }

//go:norace
func (r *rlocker) Unlock() { (*RWMutex)(r).RUnlock() }

//go:norace
func (rw *RWMutex) checked(k syncmodel.Kind, api syncmodel.API, pcs []uintptr) int64 {
	return point(rt.FamRWMutex, unsafe.Pointer(rw), k, api, pcs)
}

// lockChecked is Lock under the checker: the announcement, then the wait
// for the readers.
//
//go:norace
func (rw *RWMutex) lockChecked(pcs []uintptr) bool {
	th, id, ok := rt.EnterAt(rt.FamRWMutex, unsafe.Pointer(rw))
	if !ok {
		return false
	}
	if pcs == nil {
		var buf [rt.FramesCap]uintptr
		pcs = th.Capture(buf[:])
	}
	th.PointAt(syncmodel.Op{Kind: syncmodel.GoRWLock, API: syncmodel.APIGoRWLock, Obj: id}, pcs)
	th.Again(syncmodel.Op{Kind: syncmodel.GoRWLockDrain, API: syncmodel.APIGoRWLock, Obj: id})
	return true
}

// lockAt and unlockAt lock and unlock l for a caller inside sthread (a
// Cond), reporting the frames pcs for the sthread lockers.
//
//go:norace
func lockAt(l Locker, pcs []uintptr) {
	switch l := l.(type) {
	case *Mutex:
		if rt.Hooked() && l.checked(syncmodel.GoMutexLock, syncmodel.APIGoMutexLock, pcs) >= 0 {
			return
		}
	case *RWMutex:
		if rt.Hooked() && l.lockChecked(pcs) {
			return
		}
	case *rlocker:
		if rt.Hooked() && (*RWMutex)(l).checked(syncmodel.GoRWRLock, syncmodel.APIGoRWRLock, pcs) >= 0 {
			return
		}
	}
	l.Lock()
}

//go:norace
func unlockAt(l Locker, pcs []uintptr) {
	switch l := l.(type) {
	case *Mutex:
		if rt.Hooked() && l.checked(syncmodel.GoMutexUnlock, syncmodel.APIGoMutexUnlock, pcs) >= 0 {
			return
		}
	case *RWMutex:
		if rt.Hooked() && l.checked(syncmodel.GoRWUnlock, syncmodel.APIGoRWUnlock, pcs) >= 0 {
			return
		}
	case *rlocker:
		if rt.Hooked() && (*RWMutex)(l).checked(syncmodel.GoRWRUnlock, syncmodel.APIGoRWRUnlock, pcs) >= 0 {
			return
		}
	}
	l.Unlock()
}
