package sthread_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
)

// An executor made with Visited reports program states, so that a search
// driven by hand can be stateful: a loop that polls a flag with Yield ends
// at the states it already explored. Without Visited it reports none.
func TestExecutorVisitedReportsStates(t *testing.T) {
	poll := func() {
		var mu sthread.Mutex
		set := false
		sthread.State("set", func() any { return set })
		sthread.Go(func() { mu.Lock(); set = true; mu.Unlock() })
		for {
			mu.Lock()
			s := set
			mu.Unlock()
			if s {
				return
			}
			sthread.Yield()
		}
	}
	for _, tt := range []struct {
		name    string
		opts    []sthread.Option
		wantErr error
	}{
		{"visited", []sthread.Option{sthread.Visited()}, nil},
		{"stateless", nil, search.ErrNotStateful},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ex, release := sthread.Executor(poll, tt.opts...)
			defer release()
			res, err := search.Explore(context.Background(), ex, search.NewDFS(), search.Options{Visited: true, MaxExecutions: 10000})
			if tt.wantErr != nil {
				if err == nil || !errors.Is(err, tt.wantErr) {
					t.Fatalf("got %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !res.Complete || res.Stats.Visited == 0 || res.Stats.Revisits == 0 {
				t.Errorf("complete %v, %d states, %d revisits: want a complete search that met states again",
					res.Complete, res.Stats.Visited, res.Stats.Revisits)
			}
		})
	}
}
