package sthread_test

import (
	"context"
	"fmt"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
)

// Executor hands a check to a search driven by hand: here the exhaustive
// one with reduction, counting executions.
func ExampleExecutor() {
	ex, release := sthread.Executor(func() {
		var mu sthread.Mutex
		n := 0
		done := sthread.MakeChan[bool](0)
		sthread.Go(func() { mu.Lock(); n++; mu.Unlock(); done.Send(true) })
		mu.Lock()
		n++
		mu.Unlock()
		done.Recv()
	})
	defer release()
	res, err := search.Explore(context.Background(), ex, search.NewDPOR(), search.Options{})
	fmt.Println(res.Stats.Executions, res.Complete, err)
	// Output: 2 true <nil>
}
