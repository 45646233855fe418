package sthread

import (
	"sync/atomic"
	"unsafe"

	"github.com/stdbg/stdbg/syncmodel"
)

// The functions below are drop-in replacements for the functions of
// sync/atomic, and AtomicUint32, AtomicUint64, AtomicUintptr and AtomicValue
// for its remaining types. Like the atomic types of atomic.go, under Check
// each operation is a scheduling point: a read (Load) or a write (the others)
// of the bytes at its address, so that two operations on one address are
// dependent unless both only read it. Outside Check they are the operations
// of sync/atomic.

// AtomicAddInt32 atomically adds delta to *addr and returns the new value,
// like atomic.AddInt32.
//
//go:norace
func AtomicAddInt32(addr *int32, delta int32) (new int32) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicAdd, unsafe.Pointer(addr), 4)
	}
	return atomic.AddInt32(addr, delta)
}

// AtomicAndInt32 atomically does *addr &= mask and returns the old value,
// like atomic.AndInt32.
//
//go:norace
func AtomicAndInt32(addr *int32, mask int32) (old int32) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicAnd, unsafe.Pointer(addr), 4)
	}
	return atomic.AndInt32(addr, mask)
}

// AtomicOrInt32 atomically does *addr |= mask and returns the old value,
// like atomic.OrInt32.
//
//go:norace
func AtomicOrInt32(addr *int32, mask int32) (old int32) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicOr, unsafe.Pointer(addr), 4)
	}
	return atomic.OrInt32(addr, mask)
}

// AtomicAddInt64 atomically adds delta to *addr and returns the new value,
// like atomic.AddInt64.
//
//go:norace
func AtomicAddInt64(addr *int64, delta int64) (new int64) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicAdd, unsafe.Pointer(addr), 8)
	}
	return atomic.AddInt64(addr, delta)
}

// AtomicAndInt64 atomically does *addr &= mask and returns the old value,
// like atomic.AndInt64.
//
//go:norace
func AtomicAndInt64(addr *int64, mask int64) (old int64) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicAnd, unsafe.Pointer(addr), 8)
	}
	return atomic.AndInt64(addr, mask)
}

// AtomicOrInt64 atomically does *addr |= mask and returns the old value,
// like atomic.OrInt64.
//
//go:norace
func AtomicOrInt64(addr *int64, mask int64) (old int64) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicOr, unsafe.Pointer(addr), 8)
	}
	return atomic.OrInt64(addr, mask)
}

// AtomicAddUint32 atomically adds delta to *addr and returns the new value,
// like atomic.AddUint32.
//
//go:norace
func AtomicAddUint32(addr *uint32, delta uint32) (new uint32) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicAdd, unsafe.Pointer(addr), 4)
	}
	return atomic.AddUint32(addr, delta)
}

// AtomicAndUint32 atomically does *addr &= mask and returns the old value,
// like atomic.AndUint32.
//
//go:norace
func AtomicAndUint32(addr *uint32, mask uint32) (old uint32) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicAnd, unsafe.Pointer(addr), 4)
	}
	return atomic.AndUint32(addr, mask)
}

// AtomicOrUint32 atomically does *addr |= mask and returns the old value,
// like atomic.OrUint32.
//
//go:norace
func AtomicOrUint32(addr *uint32, mask uint32) (old uint32) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicOr, unsafe.Pointer(addr), 4)
	}
	return atomic.OrUint32(addr, mask)
}

// AtomicAddUint64 atomically adds delta to *addr and returns the new value,
// like atomic.AddUint64.
//
//go:norace
func AtomicAddUint64(addr *uint64, delta uint64) (new uint64) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicAdd, unsafe.Pointer(addr), 8)
	}
	return atomic.AddUint64(addr, delta)
}

// AtomicAndUint64 atomically does *addr &= mask and returns the old value,
// like atomic.AndUint64.
//
//go:norace
func AtomicAndUint64(addr *uint64, mask uint64) (old uint64) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicAnd, unsafe.Pointer(addr), 8)
	}
	return atomic.AndUint64(addr, mask)
}

// AtomicOrUint64 atomically does *addr |= mask and returns the old value,
// like atomic.OrUint64.
//
//go:norace
func AtomicOrUint64(addr *uint64, mask uint64) (old uint64) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicOr, unsafe.Pointer(addr), 8)
	}
	return atomic.OrUint64(addr, mask)
}

// AtomicAddUintptr atomically adds delta to *addr and returns the new value,
// like atomic.AddUintptr.
//
//go:norace
func AtomicAddUintptr(addr *uintptr, delta uintptr) (new uintptr) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicAdd, unsafe.Pointer(addr), unsafe.Sizeof(uintptr(0)))
	}
	return atomic.AddUintptr(addr, delta)
}

// AtomicAndUintptr atomically does *addr &= mask and returns the old value,
// like atomic.AndUintptr.
//
//go:norace
func AtomicAndUintptr(addr *uintptr, mask uintptr) (old uintptr) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicAnd, unsafe.Pointer(addr), unsafe.Sizeof(uintptr(0)))
	}
	return atomic.AndUintptr(addr, mask)
}

// AtomicOrUintptr atomically does *addr |= mask and returns the old value,
// like atomic.OrUintptr.
//
//go:norace
func AtomicOrUintptr(addr *uintptr, mask uintptr) (old uintptr) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicOr, unsafe.Pointer(addr), unsafe.Sizeof(uintptr(0)))
	}
	return atomic.OrUintptr(addr, mask)
}

// AtomicLoadInt32 atomically loads *addr, like atomic.LoadInt32.
//
//go:norace
func AtomicLoadInt32(addr *int32) (val int32) {
	if hooked.Load() {
		atomicPoint(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(addr), 4)
	}
	return atomic.LoadInt32(addr)
}

// AtomicStoreInt32 atomically stores val into *addr, like atomic.StoreInt32.
//
//go:norace
func AtomicStoreInt32(addr *int32, val int32) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(addr), 4)
	}
	atomic.StoreInt32(addr, val)
}

// AtomicSwapInt32 atomically stores new into *addr and returns the old value,
// like atomic.SwapInt32.
//
//go:norace
func AtomicSwapInt32(addr *int32, new int32) (old int32) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(addr), 4)
	}
	return atomic.SwapInt32(addr, new)
}

// AtomicCompareAndSwapInt32 executes the compare-and-swap operation on *addr,
// like atomic.CompareAndSwapInt32.
//
//go:norace
func AtomicCompareAndSwapInt32(addr *int32, old, new int32) (swapped bool) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(addr), 4)
	}
	return atomic.CompareAndSwapInt32(addr, old, new)
}

// AtomicLoadInt64 atomically loads *addr, like atomic.LoadInt64.
//
//go:norace
func AtomicLoadInt64(addr *int64) (val int64) {
	if hooked.Load() {
		atomicPoint(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(addr), 8)
	}
	return atomic.LoadInt64(addr)
}

// AtomicStoreInt64 atomically stores val into *addr, like atomic.StoreInt64.
//
//go:norace
func AtomicStoreInt64(addr *int64, val int64) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(addr), 8)
	}
	atomic.StoreInt64(addr, val)
}

// AtomicSwapInt64 atomically stores new into *addr and returns the old value,
// like atomic.SwapInt64.
//
//go:norace
func AtomicSwapInt64(addr *int64, new int64) (old int64) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(addr), 8)
	}
	return atomic.SwapInt64(addr, new)
}

// AtomicCompareAndSwapInt64 executes the compare-and-swap operation on *addr,
// like atomic.CompareAndSwapInt64.
//
//go:norace
func AtomicCompareAndSwapInt64(addr *int64, old, new int64) (swapped bool) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(addr), 8)
	}
	return atomic.CompareAndSwapInt64(addr, old, new)
}

// AtomicLoadUint32 atomically loads *addr, like atomic.LoadUint32.
//
//go:norace
func AtomicLoadUint32(addr *uint32) (val uint32) {
	if hooked.Load() {
		atomicPoint(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(addr), 4)
	}
	return atomic.LoadUint32(addr)
}

// AtomicStoreUint32 atomically stores val into *addr, like atomic.StoreUint32.
//
//go:norace
func AtomicStoreUint32(addr *uint32, val uint32) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(addr), 4)
	}
	atomic.StoreUint32(addr, val)
}

// AtomicSwapUint32 atomically stores new into *addr and returns the old value,
// like atomic.SwapUint32.
//
//go:norace
func AtomicSwapUint32(addr *uint32, new uint32) (old uint32) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(addr), 4)
	}
	return atomic.SwapUint32(addr, new)
}

// AtomicCompareAndSwapUint32 executes the compare-and-swap operation on *addr,
// like atomic.CompareAndSwapUint32.
//
//go:norace
func AtomicCompareAndSwapUint32(addr *uint32, old, new uint32) (swapped bool) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(addr), 4)
	}
	return atomic.CompareAndSwapUint32(addr, old, new)
}

// AtomicLoadUint64 atomically loads *addr, like atomic.LoadUint64.
//
//go:norace
func AtomicLoadUint64(addr *uint64) (val uint64) {
	if hooked.Load() {
		atomicPoint(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(addr), 8)
	}
	return atomic.LoadUint64(addr)
}

// AtomicStoreUint64 atomically stores val into *addr, like atomic.StoreUint64.
//
//go:norace
func AtomicStoreUint64(addr *uint64, val uint64) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(addr), 8)
	}
	atomic.StoreUint64(addr, val)
}

// AtomicSwapUint64 atomically stores new into *addr and returns the old value,
// like atomic.SwapUint64.
//
//go:norace
func AtomicSwapUint64(addr *uint64, new uint64) (old uint64) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(addr), 8)
	}
	return atomic.SwapUint64(addr, new)
}

// AtomicCompareAndSwapUint64 executes the compare-and-swap operation on *addr,
// like atomic.CompareAndSwapUint64.
//
//go:norace
func AtomicCompareAndSwapUint64(addr *uint64, old, new uint64) (swapped bool) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(addr), 8)
	}
	return atomic.CompareAndSwapUint64(addr, old, new)
}

// AtomicLoadUintptr atomically loads *addr, like atomic.LoadUintptr.
//
//go:norace
func AtomicLoadUintptr(addr *uintptr) (val uintptr) {
	if hooked.Load() {
		atomicPoint(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(addr), unsafe.Sizeof(uintptr(0)))
	}
	return atomic.LoadUintptr(addr)
}

// AtomicStoreUintptr atomically stores val into *addr, like atomic.StoreUintptr.
//
//go:norace
func AtomicStoreUintptr(addr *uintptr, val uintptr) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(addr), unsafe.Sizeof(uintptr(0)))
	}
	atomic.StoreUintptr(addr, val)
}

// AtomicSwapUintptr atomically stores new into *addr and returns the old value,
// like atomic.SwapUintptr.
//
//go:norace
func AtomicSwapUintptr(addr *uintptr, new uintptr) (old uintptr) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(addr), unsafe.Sizeof(uintptr(0)))
	}
	return atomic.SwapUintptr(addr, new)
}

// AtomicCompareAndSwapUintptr executes the compare-and-swap operation on *addr,
// like atomic.CompareAndSwapUintptr.
//
//go:norace
func AtomicCompareAndSwapUintptr(addr *uintptr, old, new uintptr) (swapped bool) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(addr), unsafe.Sizeof(uintptr(0)))
	}
	return atomic.CompareAndSwapUintptr(addr, old, new)
}

// AtomicLoadPointer atomically loads *addr, like atomic.LoadPointer.
//
//go:norace
func AtomicLoadPointer(addr *unsafe.Pointer) (val unsafe.Pointer) {
	if hooked.Load() {
		atomicPoint(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(addr), unsafe.Sizeof(unsafe.Pointer(nil)))
	}
	return atomic.LoadPointer(addr)
}

// AtomicStorePointer atomically stores val into *addr, like atomic.StorePointer.
//
//go:norace
func AtomicStorePointer(addr *unsafe.Pointer, val unsafe.Pointer) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(addr), unsafe.Sizeof(unsafe.Pointer(nil)))
	}
	atomic.StorePointer(addr, val)
}

// AtomicSwapPointer atomically stores new into *addr and returns the old value,
// like atomic.SwapPointer.
//
//go:norace
func AtomicSwapPointer(addr *unsafe.Pointer, new unsafe.Pointer) (old unsafe.Pointer) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(addr), unsafe.Sizeof(unsafe.Pointer(nil)))
	}
	return atomic.SwapPointer(addr, new)
}

// AtomicCompareAndSwapPointer executes the compare-and-swap operation on *addr,
// like atomic.CompareAndSwapPointer.
//
//go:norace
func AtomicCompareAndSwapPointer(addr *unsafe.Pointer, old, new unsafe.Pointer) (swapped bool) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(addr), unsafe.Sizeof(unsafe.Pointer(nil)))
	}
	return atomic.CompareAndSwapPointer(addr, old, new)
}

// AtomicUint32 is an atomic uint32, like atomic.Uint32. The zero value is 0.
type AtomicUint32 struct{ v atomic.Uint32 }

// Load atomically loads and returns the value.
//
//go:norace
func (x *AtomicUint32) Load() uint32 {
	if hooked.Load() {
		atomicPoint(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Load()
}

// Store atomically stores v.
//
//go:norace
func (x *AtomicUint32) Store(v uint32) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	x.v.Store(v)
}

// Swap atomically stores v and returns the old value.
//
//go:norace
func (x *AtomicUint32) Swap(v uint32) uint32 {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Swap(v)
}

// CompareAndSwap executes the compare-and-swap operation for the value.
//
//go:norace
func (x *AtomicUint32) CompareAndSwap(old, v uint32) bool {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.CompareAndSwap(old, v)
}

// Add atomically adds delta and returns the new value.
//
//go:norace
func (x *AtomicUint32) Add(delta uint32) uint32 {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicAdd, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Add(delta)
}

// And atomically does value &= mask and returns the old value.
//
//go:norace
func (x *AtomicUint32) And(mask uint32) (old uint32) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicAnd, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.And(mask)
}

// Or atomically does value |= mask and returns the old value.
//
//go:norace
func (x *AtomicUint32) Or(mask uint32) (old uint32) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicOr, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Or(mask)
}

// AtomicUint64 is an atomic uint64, like atomic.Uint64. The zero value is 0.
type AtomicUint64 struct{ v atomic.Uint64 }

// Load atomically loads and returns the value.
//
//go:norace
func (x *AtomicUint64) Load() uint64 {
	if hooked.Load() {
		atomicPoint(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Load()
}

// Store atomically stores v.
//
//go:norace
func (x *AtomicUint64) Store(v uint64) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	x.v.Store(v)
}

// Swap atomically stores v and returns the old value.
//
//go:norace
func (x *AtomicUint64) Swap(v uint64) uint64 {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Swap(v)
}

// CompareAndSwap executes the compare-and-swap operation for the value.
//
//go:norace
func (x *AtomicUint64) CompareAndSwap(old, v uint64) bool {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.CompareAndSwap(old, v)
}

// Add atomically adds delta and returns the new value.
//
//go:norace
func (x *AtomicUint64) Add(delta uint64) uint64 {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicAdd, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Add(delta)
}

// And atomically does value &= mask and returns the old value.
//
//go:norace
func (x *AtomicUint64) And(mask uint64) (old uint64) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicAnd, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.And(mask)
}

// Or atomically does value |= mask and returns the old value.
//
//go:norace
func (x *AtomicUint64) Or(mask uint64) (old uint64) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicOr, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Or(mask)
}

// AtomicUintptr is an atomic uintptr, like atomic.Uintptr. The zero value is 0.
type AtomicUintptr struct{ v atomic.Uintptr }

// Load atomically loads and returns the value.
//
//go:norace
func (x *AtomicUintptr) Load() uintptr {
	if hooked.Load() {
		atomicPoint(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Load()
}

// Store atomically stores v.
//
//go:norace
func (x *AtomicUintptr) Store(v uintptr) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	x.v.Store(v)
}

// Swap atomically stores v and returns the old value.
//
//go:norace
func (x *AtomicUintptr) Swap(v uintptr) uintptr {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Swap(v)
}

// CompareAndSwap executes the compare-and-swap operation for the value.
//
//go:norace
func (x *AtomicUintptr) CompareAndSwap(old, v uintptr) bool {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.CompareAndSwap(old, v)
}

// Add atomically adds delta and returns the new value.
//
//go:norace
func (x *AtomicUintptr) Add(delta uintptr) uintptr {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicAdd, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Add(delta)
}

// And atomically does value &= mask and returns the old value.
//
//go:norace
func (x *AtomicUintptr) And(mask uintptr) (old uintptr) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicAnd, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.And(mask)
}

// Or atomically does value |= mask and returns the old value.
//
//go:norace
func (x *AtomicUintptr) Or(mask uintptr) (old uintptr) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicOr, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Or(mask)
}

// AtomicValue holds a value loaded and stored atomically, like
// atomic.Value. The zero value holds nil; every value stored must be of the
// same concrete type.
type AtomicValue struct{ v atomic.Value }

// Load atomically loads and returns the value.
//
//go:norace
func (x *AtomicValue) Load() any {
	if hooked.Load() {
		atomicPoint(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Load()
}

// Store atomically stores v.
//
//go:norace
func (x *AtomicValue) Store(v any) {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	x.v.Store(v)
}

// Swap atomically stores v and returns the old value.
//
//go:norace
func (x *AtomicValue) Swap(v any) any {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Swap(v)
}

// CompareAndSwap executes the compare-and-swap operation for the value.
//
//go:norace
func (x *AtomicValue) CompareAndSwap(old, v any) bool {
	if hooked.Load() {
		atomicPoint(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.CompareAndSwap(old, v)
}
