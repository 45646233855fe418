// Package atomic is package sync/atomic of the standard library for
// programs that stdbg checks: its functions and types, with the standard
// library's names, whose every operation is, under a check (sthread.Check,
// or stdbg find), a scheduling point: a read (the loads) or a write (the
// others) of the bytes at its address, so that two operations on one
// address are dependent unless both only read it, and the search
// interleaves the goroutines around them. Outside a check they are the
// operations of sync/atomic, after one atomic load.
//
// A program written for stdbg imports this package instead of sync/atomic;
// stdbg's instrumentation of plain Go (package goinstr) rewrites the uses
// of sync/atomic into uses of this package, under an import of its own.
package atomic

import (
	stdatomic "sync/atomic"
	"unsafe"

	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// point is the scheduling point of an operation of kind k, reported as
// api, on the n bytes at p, called from the operation's function or method.
//
//go:norace
func point(k syncmodel.Kind, api syncmodel.API, p unsafe.Pointer, n uintptr) {
	rt.MemPoint(k, api, p, n)
}

// The functions of sync/atomic.

// AddInt32 atomically adds delta to *addr and returns the new value,
// like atomic.AddInt32.
//
//go:norace
func AddInt32(addr *int32, delta int32) (new int32) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicAdd, unsafe.Pointer(addr), 4)
	}
	return stdatomic.AddInt32(addr, delta)
}

// AndInt32 atomically does *addr &= mask and returns the old value,
// like atomic.AndInt32.
//
//go:norace
func AndInt32(addr *int32, mask int32) (old int32) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicAnd, unsafe.Pointer(addr), 4)
	}
	return stdatomic.AndInt32(addr, mask)
}

// OrInt32 atomically does *addr |= mask and returns the old value,
// like atomic.OrInt32.
//
//go:norace
func OrInt32(addr *int32, mask int32) (old int32) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicOr, unsafe.Pointer(addr), 4)
	}
	return stdatomic.OrInt32(addr, mask)
}

// AddInt64 atomically adds delta to *addr and returns the new value,
// like atomic.AddInt64.
//
//go:norace
func AddInt64(addr *int64, delta int64) (new int64) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicAdd, unsafe.Pointer(addr), 8)
	}
	return stdatomic.AddInt64(addr, delta)
}

// AndInt64 atomically does *addr &= mask and returns the old value,
// like atomic.AndInt64.
//
//go:norace
func AndInt64(addr *int64, mask int64) (old int64) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicAnd, unsafe.Pointer(addr), 8)
	}
	return stdatomic.AndInt64(addr, mask)
}

// OrInt64 atomically does *addr |= mask and returns the old value,
// like atomic.OrInt64.
//
//go:norace
func OrInt64(addr *int64, mask int64) (old int64) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicOr, unsafe.Pointer(addr), 8)
	}
	return stdatomic.OrInt64(addr, mask)
}

// AddUint32 atomically adds delta to *addr and returns the new value,
// like atomic.AddUint32.
//
//go:norace
func AddUint32(addr *uint32, delta uint32) (new uint32) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicAdd, unsafe.Pointer(addr), 4)
	}
	return stdatomic.AddUint32(addr, delta)
}

// AndUint32 atomically does *addr &= mask and returns the old value,
// like atomic.AndUint32.
//
//go:norace
func AndUint32(addr *uint32, mask uint32) (old uint32) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicAnd, unsafe.Pointer(addr), 4)
	}
	return stdatomic.AndUint32(addr, mask)
}

// OrUint32 atomically does *addr |= mask and returns the old value,
// like atomic.OrUint32.
//
//go:norace
func OrUint32(addr *uint32, mask uint32) (old uint32) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicOr, unsafe.Pointer(addr), 4)
	}
	return stdatomic.OrUint32(addr, mask)
}

// AddUint64 atomically adds delta to *addr and returns the new value,
// like atomic.AddUint64.
//
//go:norace
func AddUint64(addr *uint64, delta uint64) (new uint64) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicAdd, unsafe.Pointer(addr), 8)
	}
	return stdatomic.AddUint64(addr, delta)
}

// AndUint64 atomically does *addr &= mask and returns the old value,
// like atomic.AndUint64.
//
//go:norace
func AndUint64(addr *uint64, mask uint64) (old uint64) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicAnd, unsafe.Pointer(addr), 8)
	}
	return stdatomic.AndUint64(addr, mask)
}

// OrUint64 atomically does *addr |= mask and returns the old value,
// like atomic.OrUint64.
//
//go:norace
func OrUint64(addr *uint64, mask uint64) (old uint64) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicOr, unsafe.Pointer(addr), 8)
	}
	return stdatomic.OrUint64(addr, mask)
}

// AddUintptr atomically adds delta to *addr and returns the new value,
// like atomic.AddUintptr.
//
//go:norace
func AddUintptr(addr *uintptr, delta uintptr) (new uintptr) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicAdd, unsafe.Pointer(addr), unsafe.Sizeof(uintptr(0)))
	}
	return stdatomic.AddUintptr(addr, delta)
}

// AndUintptr atomically does *addr &= mask and returns the old value,
// like atomic.AndUintptr.
//
//go:norace
func AndUintptr(addr *uintptr, mask uintptr) (old uintptr) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicAnd, unsafe.Pointer(addr), unsafe.Sizeof(uintptr(0)))
	}
	return stdatomic.AndUintptr(addr, mask)
}

// OrUintptr atomically does *addr |= mask and returns the old value,
// like atomic.OrUintptr.
//
//go:norace
func OrUintptr(addr *uintptr, mask uintptr) (old uintptr) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicOr, unsafe.Pointer(addr), unsafe.Sizeof(uintptr(0)))
	}
	return stdatomic.OrUintptr(addr, mask)
}

// LoadInt32 atomically loads *addr, like atomic.LoadInt32.
//
//go:norace
func LoadInt32(addr *int32) (val int32) {
	if rt.Hooked() {
		point(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(addr), 4)
	}
	return stdatomic.LoadInt32(addr)
}

// StoreInt32 atomically stores val into *addr, like atomic.StoreInt32.
//
//go:norace
func StoreInt32(addr *int32, val int32) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(addr), 4)
	}
	stdatomic.StoreInt32(addr, val)
}

// SwapInt32 atomically stores new into *addr and returns the old value,
// like atomic.SwapInt32.
//
//go:norace
func SwapInt32(addr *int32, new int32) (old int32) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(addr), 4)
	}
	return stdatomic.SwapInt32(addr, new)
}

// CompareAndSwapInt32 executes the compare-and-swap operation on *addr,
// like atomic.CompareAndSwapInt32.
//
//go:norace
func CompareAndSwapInt32(addr *int32, old, new int32) (swapped bool) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(addr), 4)
	}
	return stdatomic.CompareAndSwapInt32(addr, old, new)
}

// LoadInt64 atomically loads *addr, like atomic.LoadInt64.
//
//go:norace
func LoadInt64(addr *int64) (val int64) {
	if rt.Hooked() {
		point(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(addr), 8)
	}
	return stdatomic.LoadInt64(addr)
}

// StoreInt64 atomically stores val into *addr, like atomic.StoreInt64.
//
//go:norace
func StoreInt64(addr *int64, val int64) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(addr), 8)
	}
	stdatomic.StoreInt64(addr, val)
}

// SwapInt64 atomically stores new into *addr and returns the old value,
// like atomic.SwapInt64.
//
//go:norace
func SwapInt64(addr *int64, new int64) (old int64) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(addr), 8)
	}
	return stdatomic.SwapInt64(addr, new)
}

// CompareAndSwapInt64 executes the compare-and-swap operation on *addr,
// like atomic.CompareAndSwapInt64.
//
//go:norace
func CompareAndSwapInt64(addr *int64, old, new int64) (swapped bool) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(addr), 8)
	}
	return stdatomic.CompareAndSwapInt64(addr, old, new)
}

// LoadUint32 atomically loads *addr, like atomic.LoadUint32.
//
//go:norace
func LoadUint32(addr *uint32) (val uint32) {
	if rt.Hooked() {
		point(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(addr), 4)
	}
	return stdatomic.LoadUint32(addr)
}

// StoreUint32 atomically stores val into *addr, like atomic.StoreUint32.
//
//go:norace
func StoreUint32(addr *uint32, val uint32) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(addr), 4)
	}
	stdatomic.StoreUint32(addr, val)
}

// SwapUint32 atomically stores new into *addr and returns the old value,
// like atomic.SwapUint32.
//
//go:norace
func SwapUint32(addr *uint32, new uint32) (old uint32) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(addr), 4)
	}
	return stdatomic.SwapUint32(addr, new)
}

// CompareAndSwapUint32 executes the compare-and-swap operation on *addr,
// like atomic.CompareAndSwapUint32.
//
//go:norace
func CompareAndSwapUint32(addr *uint32, old, new uint32) (swapped bool) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(addr), 4)
	}
	return stdatomic.CompareAndSwapUint32(addr, old, new)
}

// LoadUint64 atomically loads *addr, like atomic.LoadUint64.
//
//go:norace
func LoadUint64(addr *uint64) (val uint64) {
	if rt.Hooked() {
		point(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(addr), 8)
	}
	return stdatomic.LoadUint64(addr)
}

// StoreUint64 atomically stores val into *addr, like atomic.StoreUint64.
//
//go:norace
func StoreUint64(addr *uint64, val uint64) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(addr), 8)
	}
	stdatomic.StoreUint64(addr, val)
}

// SwapUint64 atomically stores new into *addr and returns the old value,
// like atomic.SwapUint64.
//
//go:norace
func SwapUint64(addr *uint64, new uint64) (old uint64) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(addr), 8)
	}
	return stdatomic.SwapUint64(addr, new)
}

// CompareAndSwapUint64 executes the compare-and-swap operation on *addr,
// like atomic.CompareAndSwapUint64.
//
//go:norace
func CompareAndSwapUint64(addr *uint64, old, new uint64) (swapped bool) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(addr), 8)
	}
	return stdatomic.CompareAndSwapUint64(addr, old, new)
}

// LoadUintptr atomically loads *addr, like atomic.LoadUintptr.
//
//go:norace
func LoadUintptr(addr *uintptr) (val uintptr) {
	if rt.Hooked() {
		point(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(addr), unsafe.Sizeof(uintptr(0)))
	}
	return stdatomic.LoadUintptr(addr)
}

// StoreUintptr atomically stores val into *addr, like atomic.StoreUintptr.
//
//go:norace
func StoreUintptr(addr *uintptr, val uintptr) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(addr), unsafe.Sizeof(uintptr(0)))
	}
	stdatomic.StoreUintptr(addr, val)
}

// SwapUintptr atomically stores new into *addr and returns the old value,
// like atomic.SwapUintptr.
//
//go:norace
func SwapUintptr(addr *uintptr, new uintptr) (old uintptr) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(addr), unsafe.Sizeof(uintptr(0)))
	}
	return stdatomic.SwapUintptr(addr, new)
}

// CompareAndSwapUintptr executes the compare-and-swap operation on *addr,
// like atomic.CompareAndSwapUintptr.
//
//go:norace
func CompareAndSwapUintptr(addr *uintptr, old, new uintptr) (swapped bool) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(addr), unsafe.Sizeof(uintptr(0)))
	}
	return stdatomic.CompareAndSwapUintptr(addr, old, new)
}

// LoadPointer atomically loads *addr, like atomic.LoadPointer.
//
//go:norace
func LoadPointer(addr *unsafe.Pointer) (val unsafe.Pointer) {
	if rt.Hooked() {
		point(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(addr), unsafe.Sizeof(unsafe.Pointer(nil)))
	}
	return stdatomic.LoadPointer(addr)
}

// StorePointer atomically stores val into *addr, like atomic.StorePointer.
//
//go:norace
func StorePointer(addr *unsafe.Pointer, val unsafe.Pointer) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(addr), unsafe.Sizeof(unsafe.Pointer(nil)))
	}
	stdatomic.StorePointer(addr, val)
}

// SwapPointer atomically stores new into *addr and returns the old value,
// like atomic.SwapPointer.
//
//go:norace
func SwapPointer(addr *unsafe.Pointer, new unsafe.Pointer) (old unsafe.Pointer) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(addr), unsafe.Sizeof(unsafe.Pointer(nil)))
	}
	return stdatomic.SwapPointer(addr, new)
}

// CompareAndSwapPointer executes the compare-and-swap operation on *addr,
// like atomic.CompareAndSwapPointer.
//
//go:norace
func CompareAndSwapPointer(addr *unsafe.Pointer, old, new unsafe.Pointer) (swapped bool) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(addr), unsafe.Sizeof(unsafe.Pointer(nil)))
	}
	return stdatomic.CompareAndSwapPointer(addr, old, new)
}
