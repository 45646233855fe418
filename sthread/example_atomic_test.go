package sthread_test

import (
	"context"
	"fmt"

	"github.com/stdbg/stdbg/search"
	"github.com/stdbg/stdbg/sthread"
)

// AtomicLoadInt64 and AtomicStoreInt64 replace atomic.LoadInt64 and
// atomic.StoreInt64: under the checker each is a scheduling point, so the
// lost update of an increment made of a load and a store is found.
func ExampleAtomicLoadInt64() {
	ex, release := sthread.Executor(func() {
		var n int64
		var wg sthread.WaitGroup
		wg.Add(2)
		for range 2 {
			sthread.Go(func() {
				defer wg.Done()
				sthread.AtomicStoreInt64(&n, sthread.AtomicLoadInt64(&n)+1)
			})
		}
		wg.Wait()
		sthread.Assert(sthread.AtomicLoadInt64(&n) == 2, "lost update")
	})
	defer release()
	res, _ := search.Explore(context.Background(), ex, search.NewDPOR(), search.Options{})
	fmt.Println(res.Bugs[0].Outcome.Message)
	// Outside the checker they are sync/atomic's.
	var m int64
	fmt.Println(sthread.AtomicAddInt64(&m, 5), sthread.AtomicLoadInt64(&m))
	// Output:
	// assertion failed: lost update
	// 5 5
}
