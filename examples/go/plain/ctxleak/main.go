// Command ctxleak runs a worker under a context with a timeout. The worker
// ignores the context when it delivers its result: once the caller has
// given up (the deadline passed), the worker blocks for ever on its send.
// ctxok is the fixed version.
package main

import (
	"context"
	"fmt"
	"time"
)

func work(ctx context.Context, out chan<- int) {
	time.Sleep(20 * time.Millisecond)
	out <- 42 // the fix: select on the send and <-ctx.Done()
}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	out := make(chan int)
	go work(ctx, out)
	select {
	case v := <-out:
		fmt.Println("result", v)
	case <-ctx.Done():
		fmt.Println("gave up:", ctx.Err())
	}
}
