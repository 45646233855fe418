// Command ctxok is ctxleak fixed: the worker gives up its send when the
// context is done.
package main

import (
	"context"
	"fmt"
	"time"
)

func work(ctx context.Context, out chan<- int) {
	time.Sleep(20 * time.Millisecond)
	select {
	case out <- 42:
	case <-ctx.Done():
	}
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
		if ctx.Err() == nil {
			panic("Done closed but Err is nil")
		}
		fmt.Println("gave up:", ctx.Err())
	}
}
