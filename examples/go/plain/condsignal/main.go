// Command condsignal loses a wake-up: the waiter waits for a signal
// without checking any condition, so a signal sent before it waits is
// lost and it sleeps for ever. The fix: a condition guarded by the mutex,
// tested in a loop around Wait (for !loaded { cond.Wait() }).
package main

import (
	"fmt"
	"sync"
)

func main() {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	config := ""
	go func() {
		mu.Lock()
		config = "loaded"
		mu.Unlock()
		cond.Signal()
	}()
	mu.Lock()
	cond.Wait() // the signal may have been sent already
	fmt.Println(config)
	mu.Unlock()
}
