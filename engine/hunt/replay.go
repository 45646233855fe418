package hunt

import (
	"context"
	"fmt"

	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
)

// Replay is one run of a given schedule: the replay half of every front
// end. A bug's schedule is replayed with full stacks to explain it, a
// corpus entry's to judge it against the failure it stored (Judge), a
// schedule a user gave to show it, one step at a time under a debugger.
// The front end begins the execution (with the stacks and states it
// wants) and builds the report; Run drives the execution and says how it
// ended.
type Replay struct {
	// Schedule is followed step by step; after it, the default policy
	// (keep the running thread, else the lowest id) runs the execution
	// to its end or to MaxDepth transitions.
	Schedule schedule.Schedule
	// Cycle, if not nil, makes the replay a lasso's (a livelock, a
	// violated LTL property): Schedule is its stem, and the cycle runs
	// Cycles times after it (0: once); the replay stops there, and the
	// state after each run of the cycle is compared to the state where it
	// began (with an execution that reports states, search.Stateful).
	// An empty, non-nil cycle is a program that is to end after the stem.
	Cycle  schedule.Schedule
	Cycles int
	// MaxDepth bounds the transitions of a replay that is not a lasso's,
	// schedule included (<= 0: no bound).
	MaxDepth int
	// Before, if not nil, is called at each scheduling point before its
	// step runs: a debugger stops there, one scheduling step at a time. An
	// error it returns ends the replay, and Run returns it wrapped.
	Before func(Point) error
}

// Point is a scheduling point of a replay, before its step runs.
type Point struct {
	// Step is the number of the step about to run, from 1.
	Step int
	// Next is the step: the schedule's (Scheduled), or the default
	// policy's past its end.
	Next      schedule.Step
	Scheduled bool
	// Threads are the live threads at the point, with the operations they
	// are about to run.
	Threads []search.Thread
}

// Lasso reports a lasso's replay.
func (r Replay) Lasso() bool { return r.Cycle != nil }

// String is the replay's schedule as stdbg prints it: "1;1;2", or a
// lasso's "1;1 (2;1)*".
func (r Replay) String() string { return search.LassoString(r.Schedule, r.Cycle) }

// cycles is the number of runs of a lasso's cycle.
func (r Replay) cycles() int { return max(r.Cycles, 1) }

// Replayed is how a replay went.
type Replayed struct {
	// Replay is what was replayed.
	Replay Replay
	// Outcome is how the execution ended: the program's own ending, or
	// Kind search.Diverged when the schedule did not fit the program. It
	// is nil when the depth bound stopped the execution first, or, for a
	// lasso, when the program was still running after the last run of
	// the cycle.
	Outcome *search.Outcome
	// Executed is what really ran, the default policy's tail included.
	Executed schedule.Schedule
	// Leftover is the number of steps of the schedule (for a lasso, of
	// the stem and the runs of its cycle) that did not run because the
	// execution ended first, or diverged, or reached the depth bound.
	Leftover int
	// DepthLimited reports that MaxDepth transitions ran and the
	// execution had not ended.
	DepthLimited bool
	// Lasso is the replay of a lasso: the program states met and whether
	// each run of the cycle came back to the state where it began.
	Lasso *search.LassoRun
	// Runs and Back count the runs of a lasso's cycle, and those that came
	// back to the state where the cycle began.
	Runs, Back int
	// Report is the report of the execution, when Run was given a builder.
	Report *report.Report
}

// Diverged reports a schedule that does not fit the program: a thread it
// names does not exist or cannot run at that step.
func (r *Replayed) Diverged() bool { return r.Outcome != nil && r.Outcome.Kind == search.Diverged }

// Failed reports a replay that ended in a bug (not a divergence).
func (r *Replayed) Failed() bool {
	return r.Outcome != nil && r.Outcome.Kind.IsBug() && r.Outcome.Kind != search.Diverged
}

// Loops reports a lasso's replay that shows the lasso again: every run of
// its cycle came back to the state where it began, or, for a lasso whose
// cycle is empty (a program that is to end after the stem), the program
// ended after the stem.
func (r *Replayed) Loops() bool {
	switch {
	case !r.Replay.Lasso() || r.Diverged():
		return false
	case len(r.Replay.Cycle) == 0:
		return r.Outcome != nil
	}
	return r.Outcome == nil && r.Back == r.Runs
}

// Run runs r on e, an execution begun and not yet stepped, which the
// caller closes; build, if not nil, builds the report of the execution
// once it is over (from e's trace), before Run returns. ctx stops the
// replay between two steps. The error reports an execution that could not
// be driven (with what ran so far), or a step that Before or ctx refused:
// a schedule that does not fit is not an error but a Diverged outcome.
func (r Replay) Run(ctx context.Context, e search.Execution, build func(*search.Outcome) *report.Report) (*Replayed, error) {
	out := &Replayed{Replay: r}
	e = r.watch(ctx, e)
	var err error
	if r.Lasso() {
		var lr *search.LassoRun
		lr, err = search.ReplayLasso(e, r.Schedule, r.Cycle, r.cycles())
		if lr != nil {
			out.Lasso, out.Runs = lr, r.cycles()
			rr := lr.Result
			out.Outcome, out.Executed, out.Leftover, out.DepthLimited = rr.Outcome, rr.Executed, rr.Leftover, rr.DepthLimited
			for _, back := range lr.Returned {
				if back {
					out.Back++
				}
			}
		}
	} else {
		var rr *search.ReplayResult
		rr, err = search.Replay(e, r.Schedule, r.MaxDepth)
		if rr != nil {
			out.Outcome, out.Executed, out.Leftover, out.DepthLimited = rr.Outcome, rr.Executed, rr.Leftover, rr.DepthLimited
		}
	}
	if err != nil {
		return out, err
	}
	if build != nil {
		out.Report = build(out.Outcome)
	}
	return out, nil
}

// watch wraps e so that ctx and Before are heeded before each step.
func (r Replay) watch(ctx context.Context, e search.Execution) search.Execution {
	if r.Before == nil && ctx.Done() == nil {
		return e
	}
	w := &watched{Execution: e, ctx: ctx, before: r.Before, scheduled: len(r.Schedule)}
	if r.Lasso() {
		w.scheduled += r.cycles() * len(r.Cycle)
	}
	if st, ok := e.(search.Stateful); ok {
		// A lasso's replay reads the states through the wrapper.
		return &watchedStates{watched: w, st: st}
	}
	return w
}

// watched is an execution whose steps are first shown to a hook and
// refused once a context is done.
type watched struct {
	search.Execution
	ctx       context.Context
	before    func(Point) error
	scheduled int // the steps that come from the schedule
	k         int // the steps run
}

func (w *watched) Step(st schedule.Step) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if w.before != nil {
		p := Point{Step: w.k + 1, Next: st, Scheduled: w.k < w.scheduled, Threads: w.Threads()}
		if err := w.before(p); err != nil {
			return fmt.Errorf("before step %d: %w", p.Step, err)
		}
	}
	if err := w.Execution.Step(st); err != nil {
		return err
	}
	w.k++
	return nil
}

// watchedStates is a watched execution that reports program states.
type watchedStates struct {
	*watched
	st search.Stateful
}

func (w *watchedStates) State() (search.State, bool) { return w.st.State() }
