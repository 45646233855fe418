// Package xtestonly_test is a directory holding only an external test
// package: two goroutines take two mutexes in opposite orders.
package xtestonly_test

import (
	"os"
	"sync"
	"testing"
)

func TestLockOrder(t *testing.T) {
	if os.Getenv("STDBG_ZOO") == "" {
		t.Skip("a deliberate lock-order deadlock: run STDBG_ZOO=1 stdbg find -run TestLockOrder ./examples/go/plain/xtestonly")
	}
	var a, b sync.Mutex
	var wg sync.WaitGroup
	wg.Add(2)
	moved := 0
	go func() {
		defer wg.Done()
		a.Lock()
		b.Lock()
		moved++
		b.Unlock()
		a.Unlock()
	}()
	go func() {
		defer wg.Done()
		b.Lock()
		a.Lock()
		moved++
		a.Unlock()
		b.Unlock()
	}()
	wg.Wait()
}
