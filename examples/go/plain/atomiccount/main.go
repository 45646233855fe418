// Command atomiccount counts requests from two goroutines with an atomic
// load followed by an atomic store: each access is atomic, the increment is
// not, so when both load before either stores one request is lost. The fix
// (atomiccountok) is one atomic.AddInt64.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

func main() {
	var served int64
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := atomic.LoadInt64(&served)
			atomic.StoreInt64(&served, n+1) // lost update
		}()
	}
	wg.Wait()
	if got := atomic.LoadInt64(&served); got != 2 {
		panic(fmt.Sprintf("served %d requests, want 2", got))
	}
	fmt.Println("served", served)
}
