package main

import (
	"context"
	"errors"
)

// Worker computes an answer, or gives up with ctx.Err() when ctx is
// cancelled.
type Worker func(ctx context.Context) (int, error)

// ErrNoAnswer is First's error when every worker failed.
var ErrNoAnswer = errors.New("no worker found an answer")

// First runs every worker in a goroutine of its own, with a context
// derived from parent, and returns the first answer. The others are then
// cancelled: cancel reaches every context derived from theirs, so a
// worker that runs First itself (a tree of workers) stops its own too.
// The results channel has room for every worker, so that those that
// finish after First returned do not wait for ever to send.
func First(parent context.Context, workers []Worker) (int, error) {
	ctx, cancel := context.WithCancel(context.Background()) // our own workers, our own context
	defer cancel()
	type result struct {
		v   int
		err error
	}
	results := make(chan result, len(workers))
	for _, w := range workers {
		go func() {
			v, err := w(ctx)
			results <- result{v, err}
		}()
	}
	for range workers {
		select {
		case r := <-results:
			if r.err == nil {
				return r.v, nil
			}
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	if err := parent.Err(); err != nil {
		return 0, err // cancelled: the workers' errors say so too
	}
	return 0, ErrNoAnswer
}
