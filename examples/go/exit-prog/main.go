// Command exit-prog ends its whole process from a goroutine in some
// schedules: a worker that runs before main has marked the service started
// calls os.Exit(3), the shortcut many command-line tools take on a fatal
// condition. In other schedules the worker and main take two locks in
// opposite orders and deadlock. Both are bugs, and a search run inside the
// process must survive the first to find the second:
//
//	stdbg find --all ./examples/go/exit-prog
package main

import (
	"fmt"
	"os"

	"github.com/stdbg/stdbg/sthread"
)

func main() {
	sthread.Run(func() {
		var mu, a, b sthread.Mutex
		started, served := false, 0
		done := sthread.MakeChan[bool](0)
		sthread.Go(func() {
			mu.Lock()
			if !started {
				fmt.Fprintln(os.Stderr, "worker: the service is not started")
				os.Exit(3)
			}
			mu.Unlock()
			b.Lock()
			a.Lock()
			served++
			a.Unlock()
			b.Unlock()
			done.Send(true)
		})
		mu.Lock()
		started = true
		mu.Unlock()
		a.Lock()
		b.Lock()
		served++
		b.Unlock()
		a.Unlock()
		done.Recv()
		fmt.Println("served", served)
	})
}
