// Command backoff-prog: two goroutines that back off politely forever, a
// livelock that stdbg find --livelock reports (out of process).
package main

import (
	"fmt"

	"github.com/stdbg/stdbg/sthread"
)

func main() {
	sthread.Run(func() {
		var want [2]bool
		uses := 0
		sthread.State("want", func() any { return want })
		var wg sthread.WaitGroup
		wg.Add(2)
		for me := range 2 {
			sthread.Go(func() {
				defer wg.Done()
				for {
					want[me] = true
					sthread.Yield()
					if !want[1-me] {
						break
					}
					want[me] = false // after you
					sthread.Yield()
				}
				uses++
				sthread.Progress()
				want[me] = false
			})
		}
		wg.Wait()
		fmt.Println("used", uses, "times")
	})
}
