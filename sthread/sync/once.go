package sync

import (
	stdsync "sync"
	"unsafe"

	"github.com/stdbg/stdbg/sthread/internal/rt"
	"github.com/stdbg/stdbg/syncmodel"
)

// Once performs exactly one action, a drop-in replacement for sync.Once.
// Under a check the goroutines that call Do while the action runs wait for
// it, and an action that calls Do on its own Once is reported (it would
// deadlock).
type Once struct {
	o   stdsync.Once
	ref rt.ObjRef
}

// Do calls f if and only if Do is being called for the first time on o.
//
//go:norace
func (o *Once) Do(f func()) {
	if rt.Hooked() && o.doChecked(f) {
		return
	}
	o.o.Do(f)
}

//go:norace
func (o *Once) doChecked(f func()) bool {
	th, id, ok := rt.Enter(&o.ref, rt.FamOnce, unsafe.Pointer(o))
	if !ok {
		return false
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
