package time_test

import (
	"fmt"
	"time"

	"github.com/stdbg/stdbg/sthread"
	stime "github.com/stdbg/stdbg/sthread/time"
)

// Under a check, Sleep waits on the execution's virtual clock, which starts
// at Epoch: an hour passes at once.
func ExampleSleep() {
	_, err := sthread.Explore(func() {
		start := stime.Now()
		stime.Sleep(time.Hour)
		fmt.Println(stime.Since(start), stime.Now().Format(time.DateTime))
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: 1h0m0s 2000-01-01 01:00:00
}
