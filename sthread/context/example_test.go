package context_test

import (
	"context"
	"fmt"
	"time"

	"github.com/stdbg/stdbg/sthread"
	scontext "github.com/stdbg/stdbg/sthread/context"
	"github.com/stdbg/stdbg/sthread/lang"
	stime "github.com/stdbg/stdbg/sthread/time"
)

// The deadline of a context is on the virtual clock, and it races with the
// work it bounds: although the result is ready after 5ms and the deadline
// is at 10ms, the search finds the schedule where the deadline passes
// before the result is sent. The program is plain Go as stdbg's
// instrumentation rewrites it.
func ExampleWithTimeout() {
	res, err := sthread.Explore(func() {
		ctx, cancel := scontext.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		results := make(chan int, 1)
		sthread.Go(func() {
			stime.Sleep(5 * time.Millisecond)
			lang.ChanSend(results, 42)
		})
		if lang.SelectOf(false, lang.RecvCaseOf(results), lang.RecvCaseOf(ctx.Done())) == 1 {
			sthread.Assert(false, ctx.Err().Error())
		}
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Bugs[0].Message)
	// Output: assertion failed: context deadline exceeded
}
