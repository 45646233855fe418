package sync

import (
	stdsync "sync"
	stdatomic "sync/atomic"
	"unsafe"

	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// Cond is a condition variable, a drop-in replacement for sync.Cond, on
// which goroutines wait for an event. Make one with NewCond; it must not be
// copied after first use. Under a check, Wait is four scheduling points: the
// goroutine registers as a waiter, unlocks L, waits to be signalled and
// locks L again, as sync.Cond does; Signal wakes the oldest waiter.
//
// It has the size and alignment of sync.Cond, and its L at the same
// offset: the real sync.Cond that its operations use outside a check is
// made on first use, and under a check its registration is kept beside it
// (see rt.EnterAt).
type Cond struct {
	// L is held while observing or changing the condition.
	L Locker

	// Padding, before the last field (a struct that ends with a field
	// of size zero is larger).
	_ [unsafe.Sizeof(stdsync.Cond{}) - unsafe.Sizeof(Locker(nil)) - unsafe.Sizeof(stdatomic.Pointer[stdsync.Cond]{})]byte
	c stdatomic.Pointer[stdsync.Cond] // the real one, made on first use
}

// NewCond returns a new Cond with Locker l.
//
//go:norace
func NewCond(l Locker) *Cond { return &Cond{L: l} }

// real returns the sync.Cond that c's operations use outside a check,
// whose locker is c.L (as it is when the operation runs), making it on
// first use: a Cond{L: l} literal (plain Go's sync.Cond{L: l}, rewritten)
// has none yet.
//
//go:norace
func (c *Cond) real() *stdsync.Cond {
	if r := c.c.Load(); r != nil {
		return r
	}
	c.c.CompareAndSwap(nil, &stdsync.Cond{L: condLocker{c}})
	return c.c.Load()
}

// condLocker makes the pass-through sync.Cond use the current c.L.
type condLocker struct{ c *Cond }

//go:norace
func (l condLocker) Lock() { l.c.L.Lock() }

//go:norace
func (l condLocker) Unlock() { l.c.L.Unlock() }

// Wait atomically unlocks c.L and suspends the goroutine until it is woken
// by Signal or Broadcast; it locks c.L again before returning. As with
// sync.Cond, call it in a loop that checks the condition.
//
//go:norace
func (c *Cond) Wait() {
	if rt.Hooked() && c.waitChecked() {
		return
	}
	c.real().Wait()
}

// Signal wakes one goroutine waiting on c, if there is any.
//
//go:norace
func (c *Cond) Signal() {
	if rt.Hooked() && c.checked(syncmodel.CondSignal, syncmodel.APIGoCondSignal) {
		return
	}
	c.real().Signal()
}

// Broadcast wakes all goroutines waiting on c.
//
//go:norace
func (c *Cond) Broadcast() {
	if rt.Hooked() && c.checked(syncmodel.CondBroadcast, syncmodel.APIGoCondBroadcast) {
		return
	}
	c.real().Broadcast()
}

//go:norace
func (c *Cond) checked(k syncmodel.Kind, api syncmodel.API) bool {
	return point(rt.FamCond, unsafe.Pointer(c), k, api, nil) >= 0
}

//go:norace
func (c *Cond) waitChecked() bool {
	th, id, ok := rt.EnterAt(rt.FamCond, unsafe.Pointer(c))
	if !ok {
		return false
	}
	var buf [rt.FramesCap]uintptr
	pcs := th.Capture(buf[:])
	if m, ok := c.L.(*Mutex); ok && m != nil {
		// A Mutex the model knows: the wait releases and retakes it in
		// its own two events, as a C wait does (see syncmodel.GoCondWait).
		mid := th.IDAt(rt.FamMutex, unsafe.Pointer(m))
		th.PointAt(syncmodel.Op{Kind: syncmodel.GoCondWait, API: syncmodel.APIGoCondWait, Obj: id, Obj2: mid}, pcs)
		th.PointAt(syncmodel.Op{Kind: syncmodel.GoCondWake, API: syncmodel.APIGoCondWait, Obj: id, Obj2: mid}, pcs)
		return true
	}
	th.PointAt(syncmodel.Op{Kind: syncmodel.GoCondWait, API: syncmodel.APIGoCondWait, Obj: id}, pcs)
	unlockAt(c.L, pcs)
	th.PointAt(syncmodel.Op{Kind: syncmodel.GoCondWake, API: syncmodel.APIGoCondWait, Obj: id}, pcs)
	lockAt(c.L, pcs)
	return true
}
