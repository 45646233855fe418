package sthread_test

import (
	"fmt"
	"time"

	"github.com/stdbg/stdbg/sthread"
)

// The functions on real channels are what stdbg's build-time
// instrumentation turns plain Go into; outside Check they are the real
// operations.
func ExampleSelectOf() {
	c := make(chan int, 1)
	sthread.ChanSend(c, 42) // c <- 42
	r := sthread.RecvCaseOf(c)
	switch sthread.SelectOf(true, r) { // select { case v := <-c: ...; default: ... }
	case 0:
		fmt.Println("received", r.Val())
	case -1:
		fmt.Println("nothing ready")
	}
	// Output: received 42
}

// Under Check, time is virtual: the query sleeps 50ms and the timeout is
// 100ms, yet the search finds the schedule where the timeout fires first and
// the query's goroutine is left blocked on its send.
func ExampleAfter() {
	res, err := sthread.Explore(func() {
		results := make(chan string)
		sthread.Go(func() {
			sthread.TimeSleep(50 * time.Millisecond)
			sthread.ChanSend(results, "rows")
		})
		r := sthread.RecvCaseOf(results)
		sthread.SelectOf(false, r, sthread.RecvCaseOf(sthread.After(100*time.Millisecond)))
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Bugs[0].Kind)
	// Output: leak
}
