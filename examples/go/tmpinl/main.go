package main

import (
	"fmt"

	"github.com/stdbg/stdbg/sthread"
)

func main() {
	sthread.Run(func() {
		ch := sthread.MakeChan[int](2)
		ch.Send(1)
		ch.Close()
		for v := range ch.All() {
			fmt.Println(v)
		}
	})
}
