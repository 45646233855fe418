package insearch

import (
	"bufio"
	"context"
	"errors"
	"io"
	"time"

	"github.com/stdbg/stdbg/search"
)

// progressEvery is the least time between two progress messages.
const progressEvery = 250 * time.Millisecond

// Serve runs the search of spec on ex, the process's in-process executor,
// and writes the stream to w: progress, each bug as found, then the result
// with each bug's minimisation. Closing stop stops the search (the bugs
// found so far are sent, not minimised). tr, if not nil, records each
// execution. The error reports a stream that could not be written; a search
// that failed says so in the Result.
func Serve(ex search.Executor, spec *Spec, w io.Writer, tr *Trace, stop <-chan struct{}) error {
	out := &writer{w: bufio.NewWriter(w)}
	rec, err := NewRecorder(ex, tr, spec.Ends)
	if err != nil {
		out.send(Message{Result: &Result{Error: err.Error()}})
		return out.err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	isStopped := func() bool {
		select {
		case <-stop:
			return true
		default:
			return false
		}
	}
	searchCtx, cancelSearch := withUntil(ctx, spec.SearchUntil)
	defer cancelSearch()

	var last time.Time
	progress := func(field func(*search.Stats) Message) func(search.Stats) {
		return func(st search.Stats) {
			if now := time.Now(); now.Sub(last) >= progressEvery {
				last = now
				out.send(field(&st))
			}
		}
	}
	opts := search.Options{MaxDepth: spec.MaxDepth, All: spec.All, MaxExecutions: spec.MaxExecutions,
		Progress: progress(func(st *search.Stats) Message { return Message{Progress: st} }),
		OnBug: func(b search.Bug) {
			sb := FromBug(b)
			out.send(Message{Bug: &sb})
		}}
	var res *search.Result
	if spec.Shards > 1 && spec.Splittable() {
		newEx := func(int) (search.Executor, func(), error) { return rec, func() {}, nil }
		newStrategy := func() search.Strategy { st, _ := spec.NewStrategy(); return st }
		res, err = search.ExploreSplit(searchCtx, newEx, newStrategy, opts,
			search.Split{Workers: 1, Shard: spec.Shard, Shards: spec.Shards})
	} else {
		st, serr := spec.NewStrategy()
		if serr != nil {
			out.send(Message{Result: &Result{Error: serr.Error()}})
			return out.err
		}
		res, err = search.Explore(searchCtx, rec, st, opts)
	}
	if res == nil {
		res = &search.Result{}
	}
	r := &Result{Stats: res.Stats, Complete: res.Complete, DepthLimited: res.DepthLimited, Stopped: isStopped()}
	switch {
	case err == nil:
	case errors.Is(err, search.ErrNondeterministic):
		r.Nondeterministic = true
		r.Error = err.Error()
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		// Stopped, or the budget is spent: a normal end.
		r.BudgetSpent = !r.Stopped && searchCtx.Err() == context.DeadlineExceeded
	default:
		r.Error = err.Error()
	}
	for _, b := range res.Bugs {
		sb := FromBug(b)
		if spec.Minimise && b.Cycle == nil && !isStopped() && !r.Nondeterministic {
			minCtx, cancelMin := withUntil(ctx, spec.MinimiseUntil)
			m, merr := search.Minimise(minCtx, rec, b, search.MinimiseOptions{MaxDepth: spec.MaxDepth,
				MaxExecutions: spec.MinimiseExecutions, Exhaustive: true,
				Progress: progress(func(st *search.Stats) Message { return Message{Minimising: st} })})
			cancelMin()
			if merr == nil {
				sb.Minimised = FromMinimised(m)
			}
		}
		r.Bugs = append(r.Bugs, sb)
	}
	r.Stopped = isStopped()
	out.send(Message{Result: r})
	return out.err
}

// withUntil bounds ctx by the wall-clock time until (Unix nanoseconds; 0
// is no bound).
func withUntil(ctx context.Context, until int64) (context.Context, context.CancelFunc) {
	if until == 0 {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, time.Unix(0, until))
}
