package atomic

import (
	stdatomic "sync/atomic"
	"unsafe"

	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// Value holds a value loaded and stored atomically, like
// atomic.Value. The zero value holds nil; every value stored must be of the
// same concrete type.
type Value struct{ v stdatomic.Value }

// Load atomically loads and returns the value.
//
//go:norace
func (x *Value) Load() any {
	if rt.Hooked() {
		point(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Load()
}

// Store atomically stores v.
//
//go:norace
func (x *Value) Store(v any) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	x.v.Store(v)
}

// Swap atomically stores v and returns the old value.
//
//go:norace
func (x *Value) Swap(v any) any {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Swap(v)
}

// CompareAndSwap executes the compare-and-swap operation for the value.
//
//go:norace
func (x *Value) CompareAndSwap(old, v any) bool {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.CompareAndSwap(old, v)
}
