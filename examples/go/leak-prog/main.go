// Command leak-prog leaks a goroutine: the caller waits for a result or a
// timeout, and when the timeout wins, the worker blocks forever sending a
// result nobody receives (the channel is unbuffered). Check it with
//
//	stdbg find ./examples/go/leak-prog
package main

import (
	"fmt"

	"github.com/stdbg/stdbg/sthread"
)

func fetch(timeout sthread.Chan[bool]) (string, bool) {
	result := sthread.MakeChan[string](0) // the fix: capacity 1
	sthread.Go(func() {
		result.Send("data")
	})
	var v string
	switch sthread.Select(result.RecvCase(&v, nil), timeout.RecvCase(nil, nil)) {
	case 0:
		return v, true
	default:
		return "", false
	}
}

func main() {
	sthread.Run(func() {
		timeout := sthread.MakeChan[bool](0)
		sthread.Go(func() { timeout.Close() }) // the timer fires
		v, ok := fetch(timeout)
		fmt.Println(v, ok)
	})
}
