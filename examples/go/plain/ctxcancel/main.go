// Command ctxcancel reads numbers from a generator until it has enough,
// then cancels the generator's context. The generator checks the context
// only between its sends: when it is already blocked sending the next
// number, the cancellation never reaches it and it leaks. The fix: send in
// a select with case <-ctx.Done().
package main

import (
	"context"
	"fmt"
)

func generate(ctx context.Context, out chan<- int) {
	for i := 0; ; i++ {
		if ctx.Err() != nil {
			return
		}
		out <- i // blocks for ever once the reader has stopped
	}
}

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan int)
	go generate(ctx, out)
	for v := range out {
		if v == 1 {
			cancel()
			break
		}
	}
	fmt.Println("done")
}
