package main

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"
)

type config struct{ name string }

// atomics uses every function and type of sync/atomic; it prints what they
// returned, the same instrumented or not.
func atomics() {
	var (
		i32 int32
		i64 int64
		u32 uint32
		u64 uint64
		up  uintptr
	)
	var wg sync.WaitGroup
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			atomic.AddInt32(&i32, 1)
			atomic.AddInt64(&i64, 2)
			atomic.AddUint32(&u32, 3)
			atomic.AddUint64(&u64, 4)
			atomic.AddUintptr(&up, 5)
			for {
				old := atomic.LoadInt64(&i64)
				if atomic.CompareAndSwapInt64(&i64, old, old+10) {
					break
				}
			}
		}()
	}
	wg.Wait()
	fmt.Println("add", atomic.LoadInt32(&i32), atomic.LoadInt64(&i64), atomic.LoadUint32(&u32),
		atomic.LoadUint64(&u64), atomic.LoadUintptr(&up))

	atomic.StoreInt32(&i32, 0b1100)
	atomic.StoreInt64(&i64, 0b1100)
	atomic.StoreUint32(&u32, 0b1100)
	atomic.StoreUint64(&u64, 0b1100)
	atomic.StoreUintptr(&up, 0b1100)
	fmt.Println("and", atomic.AndInt32(&i32, 0b1010), atomic.AndInt64(&i64, 0b1010),
		atomic.AndUint32(&u32, 0b1010), atomic.AndUint64(&u64, 0b1010), atomic.AndUintptr(&up, 0b1010))
	fmt.Println("or", atomic.OrInt32(&i32, 1), atomic.OrInt64(&i64, 1),
		atomic.OrUint32(&u32, 1), atomic.OrUint64(&u64, 1), atomic.OrUintptr(&up, 1))
	fmt.Println("swap", atomic.SwapInt32(&i32, 7), atomic.SwapInt64(&i64, 7),
		atomic.SwapUint32(&u32, 7), atomic.SwapUint64(&u64, 7), atomic.SwapUintptr(&up, 7))
	fmt.Println("cas", atomic.CompareAndSwapInt32(&i32, 7, 8), atomic.CompareAndSwapInt64(&i64, 6, 8),
		atomic.CompareAndSwapUint32(&u32, 7, 8), atomic.CompareAndSwapUint64(&u64, 6, 8),
		atomic.CompareAndSwapUintptr(&up, 7, 8), i32, i64, u32, u64, up)

	a, b := &config{"a"}, &config{"b"}
	var p unsafe.Pointer
	atomic.StorePointer(&p, unsafe.Pointer(a))
	old := atomic.SwapPointer(&p, unsafe.Pointer(b))
	fmt.Println("pointer", (*config)(old).name, (*config)(atomic.LoadPointer(&p)).name,
		atomic.CompareAndSwapPointer(&p, unsafe.Pointer(a), nil), atomic.CompareAndSwapPointer(&p, unsafe.Pointer(b), nil),
		atomic.LoadPointer(&p) == nil)

	var (
		tu32 atomic.Uint32
		tu64 atomic.Uint64
		tup  atomic.Uintptr
		ti32 atomic.Int32
		ti64 atomic.Int64
	)
	tu32.Store(6)
	tu64.Store(6)
	tup.Store(6)
	ti32.Store(6)
	ti64.Store(6)
	fmt.Println("types", tu32.Add(1), tu64.Add(1), tup.Add(1), tu32.Swap(3), tu64.Swap(3), tup.Swap(3),
		tu32.CompareAndSwap(3, 12), tu64.CompareAndSwap(4, 12), tup.CompareAndSwap(3, 12),
		tu32.And(4), tu64.Or(1), tup.And(8), ti32.And(2), ti64.Or(1),
		tu32.Load(), tu64.Load(), tup.Load(), ti32.Load(), ti64.Load())

	var v atomic.Value
	fmt.Println("value", v.Load() == nil, v.CompareAndSwap(nil, "x"), v.Swap("y"), v.Load())
	v.Store("z")
	fmt.Println("value", v.Load())

	// Function values and method values.
	add := atomic.AddInt64
	load := ti64.Load
	add(&i64, 100)
	fmt.Println("values", atomic.LoadInt64(&i64), load())
}
