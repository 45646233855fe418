// The grader's test of first.go: a tree of workers, where the answer comes
// from a fast leaf while a subtree of slow workers must be stopped; then a
// First whose context is cancelled before any answer.
package main

import (
	"context"
	"errors"
	"fmt"
)

// slow gives up only when cancelled.
func slow(ctx context.Context) (int, error) {
	<-ctx.Done()
	return 0, ctx.Err()
}

func fast(context.Context) (int, error) { return 7, nil }

// subtree is a worker that asks two slow workers of its own.
func subtree(ctx context.Context) (int, error) {
	return First(ctx, []Worker{slow, slow})
}

func main() {
	v, err := First(context.Background(), []Worker{subtree, fast})
	if err != nil || v != 7 {
		panic(fmt.Sprintf("First(subtree, fast) = %d, %v: want 7, nil", v, err))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := First(ctx, []Worker{slow}); !errors.Is(err, context.Canceled) {
		panic(fmt.Sprintf("First with a cancelled context returned %v: want context.Canceled", err))
	}
}
