package sthread

import (
	"sync/atomic"
	"unsafe"

	"github.com/stdbg/stdbg/syncmodel"
)

// The atomic types are drop-in replacements for those of sync/atomic. Under
// Check every operation is a scheduling point, a read (Load) or a write
// (the others) of the value's memory, so that the search interleaves the
// goroutines around it.

// atomicPoint is the scheduling point of an atomic operation on the n bytes
// at p, called from the operation's method.
//
//go:norace
func atomicPoint(k syncmodel.Kind, api syncmodel.API, p unsafe.Pointer, n uintptr) {
	if th, ok := enterFree(); ok {
		th.point(syncmodel.Op{Kind: k, API: api, Obj: uint64(uintptr(p)), Arg: int64(n)})
	}
}

// AtomicInt64 is an atomic int64, like atomic.Int64. The zero value is 0.
type AtomicInt64 struct{ v atomic.Int64 }

// Load atomically loads and returns the value.
//
//go:norace
func (x *AtomicInt64) Load() int64 {
	if hooked.Load() {
		atomicPoint(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(x), 8)
	}
	return x.v.Load()
}

// Store atomically stores v.
//
//go:norace
func (x *AtomicInt64) Store(v int64) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(x), 8)
	}
	x.v.Store(v)
}

// Add atomically adds delta and returns the new value.
//
//go:norace
func (x *AtomicInt64) Add(delta int64) int64 {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicAdd, unsafe.Pointer(x), 8)
	}
	return x.v.Add(delta)
}

// Swap atomically stores v and returns the old value.
//
//go:norace
func (x *AtomicInt64) Swap(v int64) int64 {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(x), 8)
	}
	return x.v.Swap(v)
}

// CompareAndSwap executes the compare-and-swap operation for the value.
//
//go:norace
func (x *AtomicInt64) CompareAndSwap(old, v int64) bool {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(x), 8)
	}
	return x.v.CompareAndSwap(old, v)
}

// AtomicInt32 is an atomic int32, like atomic.Int32. The zero value is 0.
type AtomicInt32 struct{ v atomic.Int32 }

// Load atomically loads and returns the value.
//
//go:norace
func (x *AtomicInt32) Load() int32 {
	if hooked.Load() {
		atomicPoint(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(x), 4)
	}
	return x.v.Load()
}

// Store atomically stores v.
//
//go:norace
func (x *AtomicInt32) Store(v int32) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(x), 4)
	}
	x.v.Store(v)
}

// Add atomically adds delta and returns the new value.
//
//go:norace
func (x *AtomicInt32) Add(delta int32) int32 {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicAdd, unsafe.Pointer(x), 4)
	}
	return x.v.Add(delta)
}

// Swap atomically stores v and returns the old value.
//
//go:norace
func (x *AtomicInt32) Swap(v int32) int32 {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(x), 4)
	}
	return x.v.Swap(v)
}

// CompareAndSwap executes the compare-and-swap operation for the value.
//
//go:norace
func (x *AtomicInt32) CompareAndSwap(old, v int32) bool {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(x), 4)
	}
	return x.v.CompareAndSwap(old, v)
}

// AtomicBool is an atomic bool, like atomic.Bool. The zero value is false.
type AtomicBool struct{ v atomic.Bool }

// Load atomically loads and returns the value.
//
//go:norace
func (x *AtomicBool) Load() bool {
	if hooked.Load() {
		atomicPoint(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(x), 4)
	}
	return x.v.Load()
}

// Store atomically stores v.
//
//go:norace
func (x *AtomicBool) Store(v bool) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(x), 4)
	}
	x.v.Store(v)
}

// Swap atomically stores v and returns the old value.
//
//go:norace
func (x *AtomicBool) Swap(v bool) bool {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(x), 4)
	}
	return x.v.Swap(v)
}

// CompareAndSwap executes the compare-and-swap operation for the value.
//
//go:norace
func (x *AtomicBool) CompareAndSwap(old, v bool) bool {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(x), 4)
	}
	return x.v.CompareAndSwap(old, v)
}

// AtomicPointer is an atomic pointer of type *T, like atomic.Pointer. The
// zero value is nil.
type AtomicPointer[T any] struct{ v atomic.Pointer[T] }

// Load atomically loads and returns the value.
//
//go:norace
func (x *AtomicPointer[T]) Load() *T {
	if hooked.Load() {
		atomicPoint(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Load()
}

// Store atomically stores v.
//
//go:norace
func (x *AtomicPointer[T]) Store(v *T) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	x.v.Store(v)
}

// Swap atomically stores v and returns the old value.
//
//go:norace
func (x *AtomicPointer[T]) Swap(v *T) *T {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Swap(v)
}

// CompareAndSwap executes the compare-and-swap operation for the value.
//
//go:norace
func (x *AtomicPointer[T]) CompareAndSwap(old, v *T) bool {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.CompareAndSwap(old, v)
}

// And atomically does value &= mask and returns the old value.
//
//go:norace
func (x *AtomicInt64) And(mask int64) (old int64) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicAnd, unsafe.Pointer(x), 8)
	}
	return x.v.And(mask)
}

// Or atomically does value |= mask and returns the old value.
//
//go:norace
func (x *AtomicInt64) Or(mask int64) (old int64) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicOr, unsafe.Pointer(x), 8)
	}
	return x.v.Or(mask)
}

// And atomically does value &= mask and returns the old value.
//
//go:norace
func (x *AtomicInt32) And(mask int32) (old int32) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicAnd, unsafe.Pointer(x), 4)
	}
	return x.v.And(mask)
}

// Or atomically does value |= mask and returns the old value.
//
//go:norace
func (x *AtomicInt32) Or(mask int32) (old int32) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicOr, unsafe.Pointer(x), 4)
	}
	return x.v.Or(mask)
}
