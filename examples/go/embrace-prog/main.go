package main

import (
	"fmt"

	"github.com/stdbg/stdbg/sthread"
)

func main() {
	sthread.Run(func() {
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
	})
}
