// Command atomicflag starts a service once from two goroutines with a
// check-then-act on an atomic flag: both may see the flag clear before
// either sets it, and the service starts twice. The fix is
// atomic.CompareAndSwapInt32(&started, 0, 1) (or sync.Once).
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

var (
	started int32
	starts  int32
)

func ensureStarted() {
	if atomic.LoadInt32(&started) == 0 {
		atomic.StoreInt32(&started, 1)
		atomic.AddInt32(&starts, 1)
	}
}

func main() {
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ensureStarted()
		}()
	}
	wg.Wait()
	if n := atomic.LoadInt32(&starts); n != 1 {
		panic(fmt.Sprintf("service started %d times", n))
	}
	fmt.Println("started once")
}
