package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/stdbg/stdbg/engine/corpus"
	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/wire"
)

// This file is the replay half of a session: one schedule run on the
// target, to show it (stdbg replay, under GDB or Delve), to explain a bug
// (its report, with full stacks), to confirm a bug in a fresh process,
// and to judge a corpus entry (rerun.go).

// DefaultMaxDepth is the depth bound of C targets by default (the
// paper's model-check/max-depth); Go targets have GoMaxDepth.
const DefaultMaxDepth = 1000

// MaxDepth is the depth bound of a search or replay of t when the user
// sets none: GoMaxDepth for a Go target, DefaultMaxDepth for a C one.
func (t *Target) MaxDepth() int {
	if t.Go {
		return GoMaxDepth
	}
	return DefaultMaxDepth
}

// ParseReplay reads a schedule as stdbg prints it ("1;1;2", "Path =
// 1;2;1", a lasso's "1;1 (2;1)*") into the replay of it.
func ParseReplay(text string) (hunt.Replay, error) {
	stem, cycle, err := search.ParseLasso(text)
	if err != nil {
		return hunt.Replay{}, err
	}
	return hunt.Replay{Schedule: stem, Cycle: cycle}, nil
}

// EntryReplay is the replay of a corpus entry's schedule (a lasso's stem
// and cycle), within the depth bound of the search that found it (0, the
// target's, for an entry that does not say).
func EntryReplay(e *corpus.Entry) (hunt.Replay, error) {
	sched, err := schedule.Parse(e.Schedule)
	if err != nil {
		return hunt.Replay{}, fmt.Errorf("schedule: %w", err)
	}
	r := hunt.Replay{Schedule: sched, MaxDepth: max(e.Search.MaxDepth, 0)}
	if e.Cycle != "" {
		if r.Cycle, err = schedule.Parse(e.Cycle); err != nil {
			return hunt.Replay{}, fmt.Errorf("cycle: %w", err)
		}
	}
	return r, nil
}

// Replayed is how a replay in a session went.
type Replayed struct {
	*hunt.Replayed
	// Trace is each step run, with its thread, operation and result: the
	// decision log with which the C library replays the run alone
	// (ctarget.WriteDecisions), the steps a debugger's replay of the
	// program is compared with.
	Trace []executor.Step
}

// Replay runs r once on the session's target, with full stacks, and
// returns its report, as stdbg replay shows it: its Path is the schedule
// given, its Executed what ran, and its notes say where the run stopped
// short of the schedule or of the program's end. A depth bound of 0 is
// the target's (Target.MaxDepth). A lasso's replay (r.Cycle) runs its
// cycle r.Cycles times (0: once) with the program's states reported, and
// its report says how many runs came back to the state where the cycle
// began; a C program's session must have been started with
// Options.State for it, for the library to track the program's heap
// from its start.
//
// r.Before, if not nil, is called before each step: a debugger follows
// the run one scheduling step at a time there. ctx stops the replay
// between two steps. The error reports a program that could not be
// started or driven; a schedule that does not fit is not an error but a
// replay that Diverged, whose report says at which step and why.
func (s *Session) Replay(ctx context.Context, r hunt.Replay) (*Replayed, error) {
	t := s.Target
	if r.Lasso() && !t.Go && !s.opts.State {
		return nil, errors.New("the replay of a lasso of a C program needs a session started with Options.State, for the library to track the program's heap from its start")
	}
	if r.MaxDepth == 0 {
		r.MaxDepth = t.MaxDepth()
	}
	rd, err := s.replay(ctx, r, true)
	var be *beginError
	switch {
	case errors.As(err, &be):
		return rd, fmt.Errorf("starting %s: %w", t.Arg, be.err)
	case err != nil:
		return rd, fmt.Errorf("replaying %s: %w", t.Arg, err)
	}
	if r.Lasso() {
		describeLasso(rd.Replayed)
		return rd, nil
	}
	rep := rd.Report
	rep.Path, rep.Executed = r.Schedule.String(), rd.Executed.String()
	switch {
	case rd.Outcome == nil:
		rep.Notes = append(rep.Notes, fmt.Sprintf("stopped after %d transitions (--max-depth)", len(rd.Executed)))
	case rd.Leftover > 0 && !rd.Diverged():
		rep.Notes = append(rep.Notes, fmt.Sprintf("the program ended %d steps before the end of the schedule", rd.Leftover))
	}
	return rd, nil
}

// describeLasso makes the report of a lasso's replay say it: the lasso
// (hunt.Mark), how many runs of the cycle came back to the state where it
// began, or why the program does not loop.
func describeLasso(rd *hunt.Replayed) {
	r := rd.Replay
	bug := search.Bug{Schedule: r.Schedule, Cycle: r.Cycle, Outcome: search.Outcome{Kind: search.Livelock,
		Message: fmt.Sprintf("the cycle ran %d times", rd.Runs)}}
	x := &hunt.Explanation{Report: rd.Report, Lasso: rd.Lasso}
	hunt.Mark(x, bug, "", nil)
	rep := rd.Report
	rep.Executed = rd.Executed.String()
	if rep.Executed == r.Schedule.String()+";"+r.Cycle.String() {
		rep.Executed = ""
	}
	switch o := rd.Outcome; {
	case rd.Diverged():
		rep.Kind, rep.Banner, rep.Message, rep.Bug = o.Kind.String(), report.Banner(o.Kind), o.Message, false
	case o != nil && len(r.Cycle) == 0:
		// A violation by a program that ends: the end is the cycle.
	case o != nil:
		rep.Notes = append(rep.Notes, fmt.Sprintf("the program ended (%s) after %d steps: it does not loop", o.Kind, len(rd.Executed)))
	case len(r.Cycle) == 0:
		rep.Notes = append(rep.Notes, "the lasso has no cycle: the program was to end after the stem, and did not")
	default:
		rep.Message = fmt.Sprintf("ran the cycle %d times; %d of the runs came back to the state where the cycle began", rd.Runs, rd.Back)
	}
}

// beginError is the error of an execution that could not begin.
type beginError struct{ err error }

func (e *beginError) Error() string { return e.err.Error() }
func (e *beginError) Unwrap() error { return e.err }

// replay runs r once in the session's process: with full stacks and its
// report when stacks is set, with the program's states for a lasso.
func (s *Session) replay(ctx context.Context, r hunt.Replay, stacks bool) (*Replayed, error) {
	old := s.proc.Flags()
	flags := old
	if stacks {
		flags |= wire.FlagStacks
	}
	if r.Lasso() {
		flags |= wire.FlagState
	}
	s.proc.SetFlags(flags)
	defer s.proc.SetFlags(old)
	e, err := s.checker.Begin()
	if err != nil {
		return nil, &beginError{err}
	}
	defer e.Close()
	var build func(*search.Outcome) *report.Report
	if stacks {
		build = func(o *search.Outcome) *report.Report { return report.Build(e, o, s.symbols()) }
	}
	rd, err := r.Run(ctx, e, build)
	return &Replayed{Replayed: rd, Trace: append([]executor.Step(nil), e.Trace()...)}, err
}

// Explain replays a bug's schedule with full stacks (a lasso's stem and
// one run of its cycle, with state reports), for its report
// (hunt.Config.Explain). ctx stops the replay between two steps, with an
// error wrapping ctx.Err().
func (s *Session) Explain(ctx context.Context, bug search.Bug, maxDepth int) (*hunt.Explanation, error) {
	rd, err := s.replay(ctx, hunt.Replay{Schedule: bug.Schedule, Cycle: bug.Cycle, MaxDepth: maxDepth}, true)
	if err != nil {
		return nil, err
	}
	return &hunt.Explanation{Report: rd.Report, Outcome: rd.Outcome, Lasso: rd.Lasso}, nil
}

// ReplayFresh runs a schedule in a fresh process of the target and returns
// how it ends.
func (s *Session) ReplayFresh(sched schedule.Schedule, maxDepth int) (o *search.Outcome, err error) {
	return s.replayFresh(context.Background(), sched, maxDepth)
}

// replayFresh is ReplayFresh stopped by ctx between two steps, with an
// error wrapping ctx.Err().
func (s *Session) replayFresh(ctx context.Context, sched schedule.Schedule, maxDepth int) (o *search.Outcome, err error) {
	s.proc.WithoutReuse(func() {
		var rd *Replayed
		if rd, err = s.replay(ctx, hunt.Replay{Schedule: sched, MaxDepth: maxDepth}, false); err == nil {
			o = rd.Outcome
		}
	})
	return o, err
}

// ConfirmFresh replays each bug (but lassos) in a fresh process of the
// program and reports whether each ends the same way: a Go program runs
// many executions in one process, and one that keeps state from one to the
// next may fail in a way that no fresh run shows.
func (s *Session) ConfirmFresh(bugs []search.Bug, maxDepth int) bool {
	ok, _ := s.confirmFresh(time.Time{}, bugs, maxDepth)
	return ok
}

// confirmFresh is ConfirmFresh within the budget, which ends at until
// (zero: no end): cut lists the bugs whose replays the budget's end cut,
// or that it left no time for, which are taken as confirmed (their
// reports say they were not: Unconfirmed).
func (s *Session) confirmFresh(until time.Time, bugs []search.Bug, maxDepth int) (ok bool, cut []search.Bug) {
	for _, bug := range bugs {
		if bug.Cycle != nil {
			continue
		}
		o, stopped, err := s.confirm(until, bug.Schedule, maxDepth)
		switch {
		case stopped:
			cut = append(cut, bug)
		case err != nil || o == nil || o.Kind != bug.Outcome.Kind || o.Where != bug.Outcome.Where:
			return false, cut
		}
	}
	return true, cut
}

// confirm replays sched in a fresh process of the program, within the
// budget that ends at until (zero: no end), and returns how it ended;
// cut reports a replay that the budget's end stopped (between two steps,
// or in a step that the process cut then), or that it left no time for.
func (s *Session) confirm(until time.Time, sched schedule.Schedule, maxDepth int) (o *search.Outcome, cut bool, err error) {
	ctx := context.Background()
	if !until.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, until)
		defer cancel()
		s.proc.SetDeadline(until)
		defer s.proc.SetDeadline(time.Time{})
	}
	if ctx.Err() != nil {
		return nil, true, nil
	}
	o, err = s.replayFresh(ctx, sched, maxDepth)
	if err != nil && (ctx.Err() != nil || errors.Is(err, search.ErrStepCut)) {
		return nil, true, nil
	}
	return o, false, err
}

// Unconfirmed is the note of a bug found in a process that had run other
// executions, whose replay in a fresh process the budget cut.
const Unconfirmed = "not confirmed in a fresh process of the program: the budget ran out before its replay there ended " +
	"(the search ran it in a process that had run other executions)"

// unconfirmed are the notes (hunt.Explored.Notes) of bugs whose
// confirmation the budget cut.
func unconfirmed(bugs []search.Bug) map[string][]string {
	if len(bugs) == 0 {
		return nil
	}
	notes := map[string][]string{}
	for _, b := range bugs {
		notes[b.Schedule.String()] = []string{Unconfirmed}
	}
	return notes
}
