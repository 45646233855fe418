package sthread

import (
	"sync"
	"unsafe"

	"github.com/stdbg/stdbg/syncmodel"
)

// Once performs exactly one action, a drop-in replacement for sync.Once.
// Under Check the goroutines that call Do while the action runs wait for
// it, and an action that calls Do on its own Once is reported (it would
// deadlock).
type Once struct {
	o   sync.Once
	ref objRef
}

// Do calls f if and only if Do is being called for the first time on o.
//
//go:norace
func (o *Once) Do(f func()) {
	if hooked.Load() && o.doChecked(f) {
		return
	}
	o.o.Do(f)
}

//go:norace
func (o *Once) doChecked(f func()) bool {
	th, id, ok := enter(&o.ref, famOnce, unsafe.Pointer(o))
	if !ok {
		return false
	}
	var buf [framesCap]uintptr
	pcs := th.capture(buf[:])
	op := syncmodel.Op{Kind: syncmodel.OnceBegin, API: syncmodel.APIOnceDo, Obj: id}
	if th.pointAt(op, pcs) == 1 {
		f()
		op.Kind = syncmodel.OnceEnd
		th.pointAt(op, pcs)
	}
	return true
}
