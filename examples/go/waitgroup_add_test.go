package goexamples

import (
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
)

// total adds up the items in goroutines. Each goroutine calls wg.Add(1)
// itself: Wait may run before any Add, find the counter at zero and return
// before the work is done.
func total(items []int) int {
	var wg sthread.WaitGroup
	var mu sthread.Mutex
	sum := 0
	for _, it := range items {
		sthread.Go(func() {
			wg.Add(1) // should be done before starting the goroutine
			defer wg.Done()
			mu.Lock()
			sum += it
			mu.Unlock()
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	return sum
}

func waitGroupRace() {
	s := total([]int{1, 2})
	sthread.Assert(s == 3, "Wait returned before the work was done")
}

func TestWaitGroupAddRacingWithWait(t *testing.T) {
	expectBug(t, waitGroupRace, search.AssertionFailure,
		"assertion failed: Wait returned before the work was done", "WaitGroup.Wait(wg) returns")
}
