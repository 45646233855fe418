package kernels

import (
	"sync"
	"testing"
)

// A notifier that drops a result when nobody is listening yet (a select
// with a default case around a send); the listener then waits forever.
func TestDroppedNotification(t *testing.T) {
	zoo(t)
	ready := make(chan string)
	go func() {
		select {
		case ready <- "synced":
		default: // nobody listening: dropped
		}
	}()
	<-ready
}

// Done called on two paths for one task: the WaitGroup goes negative and
// Go panics.
func TestWaitGroupDoneTwice(t *testing.T) {
	zoo(t)
	var wg sync.WaitGroup
	failed := make(chan bool, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		failed <- true
		wg.Done() // the error path calls Done too
	}()
	<-failed
	wg.Wait()
}

// A sender holds the lock while it sends on an unbuffered channel; the
// receiver takes the same lock before it receives (a queue whose consumer
// updates shared stats first).
func TestSendUnderLock(t *testing.T) {
	zoo(t)
	var mu sync.Mutex
	events := make(chan int)
	stats := 0
	go func() {
		mu.Lock()
		events <- 1
		mu.Unlock()
	}()
	mu.Lock()
	stats++
	mu.Unlock()
	mu.Lock()
	stats += <-events
	mu.Unlock()
}

// A producer that forgets to close its channel: the consumer's range never
// ends, and the test waits for it forever.
func TestRangeNeverClosed(t *testing.T) {
	zoo(t)
	items := make(chan int)
	done := make(chan int)
	go func() {
		sum := 0
		for v := range items {
			sum += v
		}
		done <- sum
	}()
	for i := 1; i <= 2; i++ {
		items <- i
	}
	<-done // close(items) is missing
}

// Two cleanup paths unlock the same mutex (a deferred unlock plus an
// explicit one on the early return): fatal "unlock of unlocked mutex".
func TestDoubleUnlock(t *testing.T) {
	zoo(t)
	var mu sync.Mutex
	cache := map[string]int{}
	lookup := func(k string) int {
		mu.Lock()
		defer mu.Unlock()
		v, ok := cache[k]
		if !ok {
			mu.Unlock() // early return path releases too
			return 0
		}
		return v
	}
	done := make(chan bool)
	go func() {
		mu.Lock()
		cache["a"] = 1
		mu.Unlock()
		done <- true
	}()
	lookup("b")
	<-done
}
