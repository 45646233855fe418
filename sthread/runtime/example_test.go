package runtime_test

import (
	"fmt"

	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/runtime"
	"github.com/stdbg/stdbg/sthread/sync/atomic"
)

// A loop that waits for another goroutine by polling is a transition that
// never ends unless it yields: with Gosched, a scheduling point, the search
// lets the other goroutine run between two polls. A goroutine that polls
// for ever is cut at the depth bound, which is not a bug.
func ExampleGosched() {
	res, err := sthread.Explore(func() {
		var ready atomic.Bool
		sthread.Go(func() { ready.Store(true) })
		for !ready.Load() {
			runtime.Gosched()
		}
	}, sthread.MaxDepth(20))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(res.Bugs), "bugs, depth limited:", res.DepthLimited)
	// Output: 0 bugs, depth limited: true
}
