package sync

import (
	stdsync "sync"
	stdatomic "sync/atomic"
	"unsafe"

	"github.com/stdbg/stdbg/sthread/internal/rt"
	"github.com/stdbg/stdbg/syncmodel"
)

// Once performs exactly one action, a drop-in replacement for sync.Once.
// Under a check the goroutines that call Do while the action runs wait for
// it, and an action that calls Do on its own Once is reported (it would
// deadlock). A Once whose action ran before the check (in an init
// function, in TestMain) is done under the check too: its Do returns at
// once, as in Go.
type Once struct {
	o   stdsync.Once
	ref rt.ObjRef
	// before is set once Do's action ran outside a check.
	before stdatomic.Bool
}

// Do calls f if and only if Do is being called for the first time on o.
//
//go:norace
func (o *Once) Do(f func()) {
	if rt.Hooked() && o.doChecked(f) {
		return
	}
	o.o.Do(func() {
		defer o.before.Store(true) // done, even if f panics
		f()
	})
}

//go:norace
func (o *Once) doChecked(f func()) bool {
	th, id, ok := rt.Enter(&o.ref, rt.FamOnce, unsafe.Pointer(o))
	if !ok {
		return false
	}
	if o.before.Load() {
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
