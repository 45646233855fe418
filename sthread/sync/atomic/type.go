package atomic

import (
	stdatomic "sync/atomic"
	"unsafe"

	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// The types of sync/atomic, but Value (value.go). Under a check every
// operation is a scheduling point, a read (Load) or a write (the others)
// of the value's memory, so that the search interleaves the goroutines
// around it.

// Int32 is an atomic int32, like atomic.Int32. The zero value is 0.
type Int32 struct{ v stdatomic.Int32 }

// Load atomically loads and returns the value.
//
//go:norace
func (x *Int32) Load() int32 {
	if rt.Hooked() {
		point(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(x), 4)
	}
	return x.v.Load()
}

// Store atomically stores v.
//
//go:norace
func (x *Int32) Store(v int32) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(x), 4)
	}
	x.v.Store(v)
}

// Add atomically adds delta and returns the new value.
//
//go:norace
func (x *Int32) Add(delta int32) int32 {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicAdd, unsafe.Pointer(x), 4)
	}
	return x.v.Add(delta)
}

// Swap atomically stores v and returns the old value.
//
//go:norace
func (x *Int32) Swap(v int32) int32 {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(x), 4)
	}
	return x.v.Swap(v)
}

// CompareAndSwap executes the compare-and-swap operation for the value.
//
//go:norace
func (x *Int32) CompareAndSwap(old, v int32) bool {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(x), 4)
	}
	return x.v.CompareAndSwap(old, v)
}

// And atomically does value &= mask and returns the old value.
//
//go:norace
func (x *Int32) And(mask int32) (old int32) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicAnd, unsafe.Pointer(x), 4)
	}
	return x.v.And(mask)
}

// Or atomically does value |= mask and returns the old value.
//
//go:norace
func (x *Int32) Or(mask int32) (old int32) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicOr, unsafe.Pointer(x), 4)
	}
	return x.v.Or(mask)
}

// Int64 is an atomic int64, like atomic.Int64. The zero value is 0.
type Int64 struct{ v stdatomic.Int64 }

// Load atomically loads and returns the value.
//
//go:norace
func (x *Int64) Load() int64 {
	if rt.Hooked() {
		point(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(x), 8)
	}
	return x.v.Load()
}

// Store atomically stores v.
//
//go:norace
func (x *Int64) Store(v int64) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(x), 8)
	}
	x.v.Store(v)
}

// Add atomically adds delta and returns the new value.
//
//go:norace
func (x *Int64) Add(delta int64) int64 {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicAdd, unsafe.Pointer(x), 8)
	}
	return x.v.Add(delta)
}

// Swap atomically stores v and returns the old value.
//
//go:norace
func (x *Int64) Swap(v int64) int64 {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(x), 8)
	}
	return x.v.Swap(v)
}

// CompareAndSwap executes the compare-and-swap operation for the value.
//
//go:norace
func (x *Int64) CompareAndSwap(old, v int64) bool {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(x), 8)
	}
	return x.v.CompareAndSwap(old, v)
}

// And atomically does value &= mask and returns the old value.
//
//go:norace
func (x *Int64) And(mask int64) (old int64) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicAnd, unsafe.Pointer(x), 8)
	}
	return x.v.And(mask)
}

// Or atomically does value |= mask and returns the old value.
//
//go:norace
func (x *Int64) Or(mask int64) (old int64) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicOr, unsafe.Pointer(x), 8)
	}
	return x.v.Or(mask)
}

// Uint32 is an atomic uint32, like atomic.Uint32. The zero value is 0.
type Uint32 struct{ v stdatomic.Uint32 }

// Load atomically loads and returns the value.
//
//go:norace
func (x *Uint32) Load() uint32 {
	if rt.Hooked() {
		point(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Load()
}

// Store atomically stores v.
//
//go:norace
func (x *Uint32) Store(v uint32) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	x.v.Store(v)
}

// Swap atomically stores v and returns the old value.
//
//go:norace
func (x *Uint32) Swap(v uint32) uint32 {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Swap(v)
}

// CompareAndSwap executes the compare-and-swap operation for the value.
//
//go:norace
func (x *Uint32) CompareAndSwap(old, v uint32) bool {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.CompareAndSwap(old, v)
}

// Add atomically adds delta and returns the new value.
//
//go:norace
func (x *Uint32) Add(delta uint32) uint32 {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicAdd, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Add(delta)
}

// And atomically does value &= mask and returns the old value.
//
//go:norace
func (x *Uint32) And(mask uint32) (old uint32) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicAnd, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.And(mask)
}

// Or atomically does value |= mask and returns the old value.
//
//go:norace
func (x *Uint32) Or(mask uint32) (old uint32) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicOr, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Or(mask)
}

// Uint64 is an atomic uint64, like atomic.Uint64. The zero value is 0.
type Uint64 struct{ v stdatomic.Uint64 }

// Load atomically loads and returns the value.
//
//go:norace
func (x *Uint64) Load() uint64 {
	if rt.Hooked() {
		point(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Load()
}

// Store atomically stores v.
//
//go:norace
func (x *Uint64) Store(v uint64) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	x.v.Store(v)
}

// Swap atomically stores v and returns the old value.
//
//go:norace
func (x *Uint64) Swap(v uint64) uint64 {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Swap(v)
}

// CompareAndSwap executes the compare-and-swap operation for the value.
//
//go:norace
func (x *Uint64) CompareAndSwap(old, v uint64) bool {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.CompareAndSwap(old, v)
}

// Add atomically adds delta and returns the new value.
//
//go:norace
func (x *Uint64) Add(delta uint64) uint64 {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicAdd, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Add(delta)
}

// And atomically does value &= mask and returns the old value.
//
//go:norace
func (x *Uint64) And(mask uint64) (old uint64) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicAnd, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.And(mask)
}

// Or atomically does value |= mask and returns the old value.
//
//go:norace
func (x *Uint64) Or(mask uint64) (old uint64) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicOr, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Or(mask)
}

// Uintptr is an atomic uintptr, like atomic.Uintptr. The zero value is 0.
type Uintptr struct{ v stdatomic.Uintptr }

// Load atomically loads and returns the value.
//
//go:norace
func (x *Uintptr) Load() uintptr {
	if rt.Hooked() {
		point(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Load()
}

// Store atomically stores v.
//
//go:norace
func (x *Uintptr) Store(v uintptr) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	x.v.Store(v)
}

// Swap atomically stores v and returns the old value.
//
//go:norace
func (x *Uintptr) Swap(v uintptr) uintptr {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Swap(v)
}

// CompareAndSwap executes the compare-and-swap operation for the value.
//
//go:norace
func (x *Uintptr) CompareAndSwap(old, v uintptr) bool {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.CompareAndSwap(old, v)
}

// Add atomically adds delta and returns the new value.
//
//go:norace
func (x *Uintptr) Add(delta uintptr) uintptr {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicAdd, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Add(delta)
}

// And atomically does value &= mask and returns the old value.
//
//go:norace
func (x *Uintptr) And(mask uintptr) (old uintptr) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicAnd, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.And(mask)
}

// Or atomically does value |= mask and returns the old value.
//
//go:norace
func (x *Uintptr) Or(mask uintptr) (old uintptr) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicOr, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Or(mask)
}

// Bool is an atomic bool, like atomic.Bool. The zero value is false.
type Bool struct{ v stdatomic.Bool }

// Load atomically loads and returns the value.
//
//go:norace
func (x *Bool) Load() bool {
	if rt.Hooked() {
		point(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(x), 4)
	}
	return x.v.Load()
}

// Store atomically stores v.
//
//go:norace
func (x *Bool) Store(v bool) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(x), 4)
	}
	x.v.Store(v)
}

// Swap atomically stores v and returns the old value.
//
//go:norace
func (x *Bool) Swap(v bool) bool {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(x), 4)
	}
	return x.v.Swap(v)
}

// CompareAndSwap executes the compare-and-swap operation for the value.
//
//go:norace
func (x *Bool) CompareAndSwap(old, v bool) bool {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(x), 4)
	}
	return x.v.CompareAndSwap(old, v)
}

// Pointer is an atomic pointer of type *T, like atomic.Pointer. The
// zero value is nil.
type Pointer[T any] struct{ v stdatomic.Pointer[T] }

// Load atomically loads and returns the value.
//
//go:norace
func (x *Pointer[T]) Load() *T {
	if rt.Hooked() {
		point(syncmodel.Read, syncmodel.APIAtomicLoad, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Load()
}

// Store atomically stores v.
//
//go:norace
func (x *Pointer[T]) Store(v *T) {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicStore, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	x.v.Store(v)
}

// Swap atomically stores v and returns the old value.
//
//go:norace
func (x *Pointer[T]) Swap(v *T) *T {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicSwap, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.Swap(v)
}

// CompareAndSwap executes the compare-and-swap operation for the value.
//
//go:norace
func (x *Pointer[T]) CompareAndSwap(old, v *T) bool {
	if rt.Hooked() {
		point(syncmodel.Write, syncmodel.APIAtomicCompareSwap, unsafe.Pointer(x), unsafe.Sizeof(x.v))
	}
	return x.v.CompareAndSwap(old, v)
}
