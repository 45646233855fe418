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

// First runs every worker in a goroutine of its own and returns the first
// answer (the first worker to return no error); the other workers must
// then stop, and so must the workers they started themselves (a worker
// may call First for its own workers: a tree). If ctx is cancelled before
// an answer comes, First returns ctx.Err(); if every worker fails, it
// returns ErrNoAnswer. No goroutine First started may be left blocked.
func First(ctx context.Context, workers []Worker) (int, error) {
	for _, w := range workers {
		if v, err := w(ctx); err == nil {
			return v, nil
		}
	}
	return 0, ErrNoAnswer
}
