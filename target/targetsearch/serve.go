package targetsearch

import (
	"bufio"
	"context"
	"errors"
	"io"
	"time"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
)

// progressEvery is the least time between two progress messages.
const progressEvery = 250 * time.Millisecond

// stopEvery is the least time between two looks at the stop within an
// execution.
const stopEvery = 10 * time.Millisecond

// now is the clock of the deadlines (a test's clock in tests).
var now = time.Now

// Controls are what the process that serves a search lends it besides its
// executor.
type Controls struct {
	// Stopped reports that stdbg asked the search to stop (nil: never).
	Stopped func() bool
	// Deadline, if not nil, is told when the phase under way must end
	// (Unix nanoseconds; 0: no end): the search's deadline as it begins,
	// the minimisation's when the search is over. The runtime cuts a
	// transition still running then, which no step boundary would.
	Deadline func(until int64)
}

// Serve runs the search of spec on ex, the process's in-process executor,
// and writes the stream to w: progress, each bug as found, then the result
// with each bug's minimisation. The search stops when ctl.Stopped (polled
// every stopEvery) reports true: the bugs found so far are sent, not
// minimised. tr, if not nil, records each execution. The error reports a
// stream that could not be written; a search that failed says so in the
// Result.
//
// Serve starts no goroutine and no timer: the budget and the stop are
// polled, between executions from the search's own progress calls, and
// within an execution after every step, so that an execution under way
// when the budget runs out is cut at the next step (the deadlines are
// compared with the clock at every step, the stop looked at every
// stopEvery); a step that runs past the deadline is cut by the runtime
// (ctl.Deadline). A target built with the race detector hides the
// hand-overs of its scheduler from the detector, which would take the
// search's own data, shared with another goroutine, for the program's
// races.
func Serve(ex search.Executor, spec *Spec, w io.Writer, tr *Trace, ctl Controls) error {
	stopped := ctl.Stopped
	deadline := ctl.Deadline
	if deadline == nil {
		deadline = func(int64) {}
	}
	out := &writer{w: bufio.NewWriter(w)}
	if spec.Budget > 0 && spec.SearchUntil == 0 {
		// The budget is the search's: it starts now, whatever the
		// process took to get here.
		searchUntil, until := hunt.Deadlines(now(), spec.Budget, spec.Minimise)
		sp := *spec
		sp.SearchUntil, sp.MinimiseUntil = searchUntil.UnixNano(), until.UnixNano()
		spec = &sp
		out.send(Message{Began: &Began{SearchUntil: spec.SearchUntil, MinimiseUntil: spec.MinimiseUntil}})
	}
	rec, err := NewRecorder(ex, tr, spec.Ends)
	if err != nil {
		out.send(Message{Result: &Result{Error: err.Error()}})
		return out.err
	}
	st, err := newStrategy(spec)
	if err != nil {
		out.send(Message{Result: &Result{Error: err.Error()}})
		return out.err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	searchCtx, cancelSearch := context.WithCancel(ctx)
	defer cancelSearch()
	minCtx, cancelMin := context.WithCancel(ctx)
	defer cancelMin()
	// poll cancels the search (or all) when stopped or past the
	// deadlines, and reports whether the search's deadline passed.
	wasStopped, budgetSpent := false, false
	var lookedAt time.Time // when the stop was last looked at
	poll := func() {
		t := now()
		lookedAt = t
		if !wasStopped && stopped != nil && stopped() {
			wasStopped = true
			cancel()
		}
		ns := t.UnixNano()
		if spec.SearchUntil != 0 && ns >= spec.SearchUntil && searchCtx.Err() == nil {
			budgetSpent = true
			cancelSearch()
		}
		if spec.MinimiseUntil != 0 && ns >= spec.MinimiseUntil {
			cancelMin()
		}
	}
	// Within an execution: the search and the minimisation see the
	// cancellation before their next step.
	rec.afterStep = func() {
		t := now()
		ns := t.UnixNano()
		if t.Sub(lookedAt) >= stopEvery ||
			spec.SearchUntil != 0 && ns >= spec.SearchUntil && searchCtx.Err() == nil ||
			spec.MinimiseUntil != 0 && ns >= spec.MinimiseUntil && minCtx.Err() == nil {
			poll()
		}
	}
	var last time.Time
	progress := func(field func(*search.Stats) Message) func(search.Stats) {
		return func(st search.Stats) {
			poll()
			if now := time.Now(); now.Sub(last) >= progressEvery {
				last = now
				out.send(field(&st))
			}
		}
	}
	poll()
	// The budget is kept here, by the deadlines: the hunt's own timers
	// would be goroutines of the search's (see hunt.Config).
	req := spec.Request
	req.Budget = 0
	cfg := hunt.Config{Executor: rec, Strategy: st, Request: req,
		Options: search.Options{
			Progress: progress(func(st *search.Stats) Message { return Message{Progress: st} }),
			OnBug: func(b search.Bug) {
				sb := FromBug(b)
				out.send(Message{Bug: &sb})
			}},
		SearchContext: searchCtx, MinimiseContext: minCtx,
		MinimiseNoReduction: spec.Search.Reduction == search.ReductionNone && spec.Search.Splittable(),
		MinimiseProgress:    progress(func(st *search.Stats) Message { return Message{Minimising: st} }),
	}
	// The runtime cuts a step still running at the search's deadline, then
	// at the minimisation's.
	deadline(spec.SearchUntil)
	defer deadline(0)
	cfg.Explore = func(ctx context.Context, opts search.Options) (*hunt.Explored, error) {
		defer deadline(spec.MinimiseUntil)
		var res *search.Result
		var err error
		if spec.Shards > 1 && spec.Splittable() {
			newEx := func(int) (search.Executor, func(), error) { return rec, func() {}, nil }
			newStrategy := func() search.Strategy { st, _ := newStrategy(spec); return st }
			res, err = search.ExploreSplit(ctx, newEx, newStrategy, opts, search.Split{Workers: 1, Shard: spec.Shard, Shards: spec.Shards})
		} else {
			res, err = search.Explore(ctx, rec, st, opts)
		}
		if res == nil {
			res = &search.Result{}
		}
		poll()
		if errors.Is(err, search.ErrStepCut) && !wasStopped {
			// The runtime cut a step at the deadline, before the
			// next step would have looked at the clock.
			budgetSpent = true
		}
		return &hunt.Explored{Result: *res, BudgetSpent: budgetSpent}, err
	}
	found, err := hunt.Run(ctx, cfg)
	poll()
	res := found.Search
	r := &Result{Stats: res.Stats, Complete: res.Complete, DepthLimited: res.DepthLimited, Cut: res.Cut, Loops: res.Loops, Stopped: wasStopped}
	switch {
	case err == nil:
	case errors.Is(err, search.ErrNondeterministic):
		r.Nondeterministic = true
		r.Error = err.Error()
		var se *search.StateError
		if errors.As(err, &se) {
			r.KeptState = se.State
		}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
	default:
		r.Error = err.Error()
		r.CannotJudge = errors.Is(err, search.ErrCannotJudge)
	}
	r.BudgetSpent = !wasStopped && budgetSpent
	if len(found.Findings) == 0 {
		// A search that failed (or was stopped before the hunt went on):
		// the bugs it found, as found.
		for _, b := range res.Bugs {
			r.Bugs = append(r.Bugs, FromBug(b))
		}
	}
	for i, f := range found.Findings {
		// Each as found (the hunt's findings follow the search's bugs),
		// with its minimisation.
		sb := FromBug(search.Bug{Schedule: f.Found, Outcome: f.Bug.Outcome, Cycle: f.Bug.Cycle, By: f.Bug.By})
		if i < len(res.Bugs) {
			sb = FromBug(res.Bugs[i])
		}
		if f.Minimised != nil {
			sb.Minimised = FromMinimised(f.Minimised)
		}
		r.Bugs = append(r.Bugs, sb)
	}
	out.send(Message{Result: r})
	return out.err
}

// newStrategy returns a fresh strategy of spec for a search served inside
// the target's process: a portfolio there shares the search among its
// members in the CPU time of the process, not in wall time
// (search.InProcess).
func newStrategy(spec *Spec) (search.Strategy, error) {
	st, err := spec.NewStrategy()
	return search.InProcess(st), err
}
