// Command atomiccountok is atomiccount fixed: each goroutine increments the
// counter with one atomic.AddInt64, so no update is lost in any schedule.
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
			atomic.AddInt64(&served, 1)
		}()
	}
	wg.Wait()
	if got := atomic.LoadInt64(&served); got != 2 {
		panic(fmt.Sprintf("served %d requests, want 2", got))
	}
	fmt.Println("served", served)
}
