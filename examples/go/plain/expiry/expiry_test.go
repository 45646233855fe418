package expiry

import (
	"sync"
	"testing"
	"time"
)

// TestExpiry puts two workers to idle from goroutines, takes a cut, puts a
// third, and finds the first two, and only them, idle before the cut.
func TestExpiry(t *testing.T) {
	var q Idle
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q.Put()
		}()
	}
	wg.Wait()
	cut := time.Now()
	q.Put()
	if n := q.Before(cut); n != 2 {
		t.Errorf("%d workers idle before the cut, want 2", n)
	}
	if !q.Ordered() {
		t.Error("idle times out of order")
	}
	if time.Since(cut) <= 0 {
		t.Error("no time passed since the cut")
	}
}
