// Command norun-prog is the deadly embrace written with package sthread, but
// its main does not call sthread.Run: stdbg find runs main's body inside Run
// for it (and says so).
package main

import (
	"fmt"

	"github.com/stdbg/stdbg/sthread"
)

func main() {
	var a, b sthread.Mutex
	transfers := 0
	done := sthread.MakeChan[bool](0)
	sthread.Go(func() {
		b.Lock()
		a.Lock()
		transfers++
		a.Unlock()
		b.Unlock()
		done.Send(true)
	})
	a.Lock()
	b.Lock()
	transfers++
	b.Unlock()
	a.Unlock()
	done.Recv()
	fmt.Println("done", transfers)
}
