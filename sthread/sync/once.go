package sync

import (
	stdsync "sync"
	stdatomic "sync/atomic"
	"unsafe"

	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// Once performs exactly one action, a drop-in replacement for sync.Once.
// Under a check the goroutines that call Do while the action runs wait for
// it, and an action that calls Do on its own Once is reported (it would
// deadlock). A Once whose action ran before the check (in an init
// function, in TestMain) is done under the check too: its Do returns at
// once, as in Go.
//
// It has the size and alignment of sync.Once: outside a check it is
// sync.Once's algorithm on the same fields (a done flag, read first, and a
// mutex), and under a check its registration is kept beside it (see
// rt.EnterAt).
type Once struct {
	// Padding, first (a struct that ends with a field of size zero is
	// larger).
	_ [unsafe.Sizeof(stdsync.Once{}) - unsafe.Sizeof(stdatomic.Uint32{}) - unsafe.Sizeof(stdsync.Mutex{})]byte
	// done is set once Do's action ran outside a check.
	done stdatomic.Uint32
	m    stdsync.Mutex
}

// Do calls f if and only if Do is being called for the first time on o.
//
//go:norace
func (o *Once) Do(f func()) {
	if rt.Hooked() && o.doChecked(f) {
		return
	}
	if o.done.Load() == 0 {
		o.doSlow(f)
	}
}

// doSlow is sync.Once's: the first caller runs f under o.m, and is done
// even if f panics; the others wait for it on o.m.
//
//go:norace
func (o *Once) doSlow(f func()) {
	o.m.Lock()
	defer o.m.Unlock()
	if o.done.Load() == 0 {
		defer o.done.Store(1)
		f()
	}
}

//go:norace
func (o *Once) doChecked(f func()) bool {
	th, id, ok := rt.EnterAt(rt.FamOnce, unsafe.Pointer(o))
	if !ok {
		return false
	}
	if o.done.Load() != 0 {
		// Done before the check, and so for ever: a load of a value no
		// one can change, which commutes with every operation.
		return true
	}
	var buf [rt.FramesCap]uintptr
	pcs := th.Capture(buf[:])
	op := syncmodel.Op{Kind: syncmodel.OnceBegin, API: syncmodel.APIOnceDo, Obj: id}
	if th.PointAt(op, pcs) == 1 {
		f()
		op.Kind = syncmodel.OnceEnd
		th.PointAt(op, pcs)
	}
	return true
}
