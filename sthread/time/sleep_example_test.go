package time_test

import (
	"fmt"
	"time"

	"github.com/stdbg/stdbg/sthread"
	stime "github.com/stdbg/stdbg/sthread/time"
)

// Under a check, Sleep waits on the execution's virtual clock, which starts
// at Epoch: an hour passes at once. (The second reading of the clock is one
// ReadStep later than the first would be without the sleep.)
func ExampleSleep() {
	_, err := sthread.Explore(func() {
		start := stime.Now()
		stime.Sleep(time.Hour)
		fmt.Println(stime.Since(start), stime.Now().Format(time.DateTime))
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: 1h0m0.000000025s 2000-01-01 01:00:00
}

// Under a check, every reading of the virtual clock moves it on by
// ReadStep, as a real clock moves on between two calls: code that takes
// two readings to differ, or a Since to be positive, works as it does
// outside a check, and a replay reads the same times.
func ExampleNow() {
	_, err := sthread.Explore(func() {
		start := stime.Now()
		end := stime.Now()
		fmt.Println(end.After(start), end.Sub(start) == stime.ReadStep, stime.Since(start) > 0)
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: true true true
}
