package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/stdbg/stdbg/corpus"
	"github.com/stdbg/stdbg/hunt"
	"github.com/stdbg/stdbg/report"
	"github.com/stdbg/stdbg/schedule"
	"github.com/stdbg/stdbg/search"
	"github.com/stdbg/stdbg/session"
	"github.com/stdbg/stdbg/wire"
)

// This file replays lassos, the schedules of livelocks and violations of
// LTL properties: a stem, then a cycle run again and again.

// lasso runs a lasso's stem and then its cycle --cycles times, with state
// reports, shows the program's output and the trace, and says whether each
// run of the cycle came back to the state where it began. Exit 1 when they
// all did (the livelock reproduces).
func (c *replayer) lasso(stem, cycle schedule.Schedule, t *session.Target, env []string) error {
	a := c.app
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s, err := a.startSession(t, session.Options{Stdout: a.stdout, Stderr: a.stderr, Env: env, FastExit: true, State: true})
	if err != nil {
		return err
	}
	closed := false
	defer func() {
		if !closed {
			s.Close()
		}
	}()
	s.Proc.SetFlags(wire.FlagStacks | wire.FlagState | wire.FlagFastExit)
	e, err := s.Checker.Begin()
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("starting %s: %w", t.Arg, err)}
	}
	n := a.v.GetInt("cycles")
	lr, err := search.ReplayLasso(e, stem, cycle, n)
	if err != nil {
		e.Close()
		return &exitError{code: exitUsage, err: fmt.Errorf("replaying %s: %w", t.Arg, err)}
	}
	bug := search.Bug{Schedule: stem, Cycle: cycle, Outcome: search.Outcome{Kind: search.Livelock,
		Message: fmt.Sprintf("the cycle ran %d times", n)}}
	x := &hunt.Explanation{Report: report.Build(e, lr.Result.Outcome, s.Syms), Lasso: lr}
	hunt.Mark(x, bug, "", nil)
	r := x.Report
	e.Close()
	s.Close()
	closed = true
	r.Executed = lr.Result.Executed.String()
	if r.Executed == (stem.String() + ";" + cycle.String()) {
		r.Executed = ""
	}
	back := 0
	for _, ok := range lr.Returned {
		if ok {
			back++
		}
	}
	reproduced := false
	switch o := lr.Result.Outcome; {
	case o != nil && o.Kind == search.Diverged:
		r.Kind, r.Banner, r.Message, r.Bug = o.Kind.String(), report.Banner(o.Kind), o.Message, false
	case o != nil:
		r.Notes = append(r.Notes, fmt.Sprintf("the program ended (%s) after %d steps: it does not loop", o.Kind, len(lr.Result.Executed)))
	case len(cycle) == 0:
		r.Notes = append(r.Notes, "the lasso has no cycle: the program was to end after the stem, and did not")
	default:
		reproduced = back == n
		r.Message = fmt.Sprintf("ran the cycle %d times; %d of the runs came back to the state where the cycle began", n, back)
	}
	if len(cycle) == 0 && lr.Result.Outcome != nil && lr.Result.Outcome.Kind != search.Diverged {
		// A violation by a program that ends: the end is the cycle.
		reproduced = true
		r.Notes = r.Notes[:len(r.Notes)-1]
	}
	if err := c.print(r, t, search.LassoString(stem, cycle)); err != nil {
		return err
	}
	switch {
	case lr.Result.Outcome != nil && lr.Result.Outcome.Kind == search.Diverged:
		return &exitError{code: exitUsage}
	case reproduced:
		return bugFound
	}
	return nil
}

// lasso replays a stored livelock or liveness violation for corpus run:
// it reproduces when every run of the cycle comes back to the state where
// the cycle began (or, for a violation by a program that ends, when the
// stem still ends the program).
func (c *rerunner) lasso(r rerun, e *corpus.Entry, t *session.Target, stem schedule.Schedule) rerun {
	cycle, err := schedule.Parse(e.Cycle)
	if err != nil {
		r.Status, r.Detail = statusCorrupt, "cycle: "+err.Error()
		return r
	}
	s, err := c.startSession(t, session.Options{Stdout: io.Discard, Stderr: io.Discard, Env: e.Target.Env, FastExit: true, State: true})
	if err != nil {
		r.Status, r.Detail = statusError, oneLine(err.Error())
		return r
	}
	defer s.Close()
	s.Proc.SetFlags(s.Proc.Flags() | wire.FlagState)
	ex, err := s.Checker.Begin()
	if err != nil {
		r.Status, r.Detail = statusError, oneLine(err.Error())
		return r
	}
	defer ex.Close()
	const runs = 3
	lr, err := search.ReplayLasso(ex, stem, cycle, runs)
	if err != nil {
		r.Status, r.Detail = statusError, oneLine(err.Error())
		return r
	}
	back := 0
	for _, ok := range lr.Returned {
		if ok {
			back++
		}
	}
	o := lr.Result.Outcome
	switch {
	case o != nil && o.Kind == search.Diverged:
		r.Status, r.Detail = statusDiverged, o.Message
	case len(cycle) == 0 && o != nil && !o.Kind.IsBug():
		r.Status, r.Detail = statusReproduces, fmt.Sprintf("%s: the run still ends after the stem", e.Failure.Kind)
	case len(cycle) > 0 && o == nil && back == runs:
		r.Status, r.Detail = statusReproduces, fmt.Sprintf("%s: the cycle still comes back to its state (%d runs)", e.Failure.Kind, runs)
	case o != nil && o.Kind.IsBug():
		r.Status, r.Detail = statusChanged, fmt.Sprintf("now %s: %s (was %s)", o.Kind, o.Message, e.Failure.Kind)
	default:
		r.Status, r.Detail = statusFixed, fmt.Sprintf("the lasso no longer loops: %d of %d runs of the cycle came back to its state", back, runs)
	}
	return r
}
