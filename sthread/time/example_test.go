package time_test

import (
	"fmt"
	"time"

	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/lang"
	stime "github.com/stdbg/stdbg/sthread/time"
)

// Under a check, time is virtual: the query sleeps 50ms and the timeout is
// 100ms, yet the search finds the schedule where the timeout fires first and
// the query's goroutine is left blocked on its send. The program is plain
// Go as stdbg's instrumentation rewrites it (a select on real channels
// becomes lang.SelectOf).
func ExampleAfter() {
	res, err := sthread.Explore(func() {
		results := make(chan string)
		sthread.Go(func() {
			stime.Sleep(50 * time.Millisecond)
			lang.ChanSend(results, "rows")
		})
		r := lang.RecvCaseOf(results)
		lang.SelectOf(false, r, lang.RecvCaseOf(stime.After(100*time.Millisecond)))
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Bugs[0].Kind)
	// Output: leak
}
