package atomic_test

import (
	"context"
	"fmt"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/sync/atomic"
)

// LoadInt64 and StoreInt64 replace sync/atomic's: under the checker each
// is a scheduling point, so the lost update of an increment made of a load
// and a store is found.
func ExampleLoadInt64() {
	ex, release := sthread.Executor(func() {
		var n int64
		var wg sthread.WaitGroup
		wg.Add(2)
		for range 2 {
			sthread.Go(func() {
				defer wg.Done()
				atomic.StoreInt64(&n, atomic.LoadInt64(&n)+1)
			})
		}
		wg.Wait()
		sthread.Assert(atomic.LoadInt64(&n) == 2, "lost update")
	})
	defer release()
	res, _ := search.Explore(context.Background(), ex, search.NewDPOR(), search.Options{})
	fmt.Println(res.Bugs[0].Outcome.Message)
	// Outside the checker they are sync/atomic's.
	var m int64
	fmt.Println(atomic.AddInt64(&m, 5), atomic.LoadInt64(&m))
	// Output:
	// assertion failed: lost update
	// 5 5
}
