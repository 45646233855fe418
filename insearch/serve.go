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
// with each bug's minimisation. The search stops when stopped (polled a
// few times a second; nil: never) reports true: the bugs found so far are
// sent, not minimised. tr, if not nil, records each execution. The error
// reports a stream that could not be written; a search that failed says
// so in the Result.
//
// Serve starts no goroutine and no timer: the budget and the stop are
// polled from the search's own progress calls. A target built with the
// race detector hides the hand-overs of its scheduler from the detector,
// which would take the search's own data, shared with another goroutine,
// for the program's races.
func Serve(ex search.Executor, spec *Spec, w io.Writer, tr *Trace, stopped func() bool) error {
	out := &writer{w: bufio.NewWriter(w)}
	rec, err := NewRecorder(ex, tr, spec.Ends)
	if err != nil {
		out.send(Message{Result: &Result{Error: err.Error()}})
		return out.err
	}
	isStopped := func() bool { return stopped != nil && stopped() }
	wasStopped := false
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// poll cancels the search when stopped or past until.
	poll := func(until int64, cancel context.CancelFunc) bool {
		if !wasStopped && isStopped() {
			wasStopped = true
			cancel()
		}
		if until != 0 && time.Now().UnixNano() >= until {
			cancel()
			return true
		}
		return false
	}
	searchCtx, cancelSearch := context.WithCancel(ctx)
	defer cancelSearch()
	budgetSpent := false

	var last time.Time
	progress := func(field func(*search.Stats) Message, until int64, cancel context.CancelFunc, spent *bool) func(search.Stats) {
		return func(st search.Stats) {
			if poll(until, cancel) && spent != nil {
				*spent = true
			}
			if now := time.Now(); now.Sub(last) >= progressEvery {
				last = now
				out.send(field(&st))
			}
		}
	}
	if poll(spec.SearchUntil, cancelSearch) {
		budgetSpent = true
	}
	opts := search.Options{MaxDepth: spec.MaxDepth, All: spec.All, MaxExecutions: spec.MaxExecutions,
		Progress: progress(func(st *search.Stats) Message { return Message{Progress: st} }, spec.SearchUntil, cancelSearch, &budgetSpent),
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
	poll(0, cancel)
	r := &Result{Stats: res.Stats, Complete: res.Complete, DepthLimited: res.DepthLimited, Cut: res.Cut, Stopped: wasStopped}
	switch {
	case err == nil:
	case errors.Is(err, search.ErrNondeterministic):
		r.Nondeterministic = true
		r.Error = err.Error()
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		// Stopped, or the budget is spent: a normal end.
		r.BudgetSpent = !wasStopped && budgetSpent
	default:
		r.Error = err.Error()
	}
	for _, b := range res.Bugs {
		sb := FromBug(b)
		if spec.Minimise && b.Cycle == nil && !wasStopped && !r.Nondeterministic {
			minCtx, cancelMin := context.WithCancel(ctx)
			if poll(spec.MinimiseUntil, cancelMin) {
				cancelMin()
				r.Bugs = append(r.Bugs, sb)
				continue
			}
			m, merr := search.Minimise(minCtx, rec, b, search.MinimiseOptions{MaxDepth: spec.MaxDepth,
				MaxExecutions: spec.MinimiseExecutions, Exhaustive: true,
				SearchExecutions: res.Stats.Executions, NoReduction: spec.Search.Reduction == search.ReductionNone && spec.Search.Splittable(),
				Progress: progress(func(st *search.Stats) Message { return Message{Minimising: st} }, spec.MinimiseUntil, cancelMin, nil)})
			cancelMin()
			if merr == nil {
				sb.Minimised = FromMinimised(m)
			}
		}
		r.Bugs = append(r.Bugs, sb)
	}
	r.Stopped = wasStopped
	out.send(Message{Result: r})
	return out.err
}
