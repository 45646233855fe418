package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/stdbg/stdbg/corpus"
	"github.com/stdbg/stdbg/report"
	"github.com/stdbg/stdbg/schedule"
	"github.com/stdbg/stdbg/search"
	"github.com/stdbg/stdbg/session"
)

// This file replays one corpus entry: the target it names, the rerun,
// its report and the exit status of a run.

// binaryChanged says, for a rerun's output, whether the program that ran
// is not the one the bug was found in.
func binaryChanged(e *corpus.Entry, t *session.Target) string {
	if e.Target.BinarySHA256 == "" || t.Go {
		return ""
	}
	if h, err := corpus.FileSHA256(t.Binary); err == nil && h != e.Target.BinarySHA256 {
		return " (the binary changed since the bug was found)"
	}
	return ""
}

// entry replays one entry and classifies the result.
func (c *rerunner) entry(it corpus.Item) (r rerun) {
	r = rerun{Path: it.Path}
	if it.Err != nil {
		r.Status, r.Detail = statusCorrupt, it.Err.Error()
		return r
	}
	e := it.Entry
	t, err := session.FromEntry(it.Path, e, c.binary)
	if err != nil {
		var refused *corpus.RefusedError
		if errors.As(err, &refused) {
			// The path is already the line's.
			r.Status, r.Detail = statusError, "refused: "+refused.Field+" "+refused.Reason
			return r
		}
		r.Status, r.Detail = statusError, oneLine(err.Error())
		return r
	}
	defer func() { r.Detail += binaryChanged(e, t) }()
	sched, err := schedule.Parse(e.Schedule)
	if err != nil {
		r.Status, r.Detail = statusCorrupt, "schedule: "+err.Error()
		return r
	}
	if e.Cycle != "" {
		return c.lasso(r, e, t, sched)
	}
	s, err := c.startSession(t, session.Options{Stdout: io.Discard, Stderr: io.Discard, Env: e.Target.Env, FastExit: true})
	if err != nil {
		r.Status, r.Detail = statusError, oneLine(err.Error())
		return r
	}
	defer s.Close()
	ex, err := s.Checker.Begin()
	if err != nil {
		r.Status, r.Detail = statusError, oneLine(err.Error())
		return r
	}
	defer ex.Close()
	depth := e.Search.MaxDepth
	if depth <= 0 {
		depth = 1000
	}
	rr, err := search.Replay(ex, sched, depth)
	if err != nil {
		r.Status, r.Detail = statusError, oneLine(err.Error())
		return r
	}
	o := rr.Outcome
	switch {
	case o != nil && o.Kind == search.Diverged:
		r.Status, r.Detail = statusDiverged, o.Message
		if c.research {
			ex.Close()
			if found := researchEntry(s, it.Path, e, sched[:o.Step], depth, c.researchExecs); found != "" {
				r.Status, r.Detail = statusReproduces, o.Message+"; the bug survives: "+found
			} else {
				r.Detail += fmt.Sprintf("; no %s found again within %d executions", e.Failure.Kind, c.researchExecs)
			}
		}
	case o != nil && o.Kind.String() == e.Failure.Kind && o.Where == e.Failure.Where:
		r.Status, r.Detail = statusReproduces, fmt.Sprintf("%s: %s", o.Kind, o.Message)
		r.report = c.report(s, ex, it.Path, sched, *o, depth)
	case o != nil && o.Kind.IsBug():
		r.Status, r.Detail = statusChanged, fmt.Sprintf("now %s: %s (was %s at %s)", o.Kind, o.Message, e.Failure.Kind, e.Failure.Where)
		r.report = c.report(s, ex, it.Path, sched, *o, depth)
	case rr.Leftover > 0:
		// The program ended (or was cut) before the schedule did: the
		// schedule no longer fits, which says nothing of the bug.
		what := "the execution ended"
		if o == nil {
			what = fmt.Sprintf("the depth bound (%d) was reached", depth)
		}
		r.Status, r.Detail = statusDiverged, fmt.Sprintf("%s after %d of the schedule's %d steps", what, len(sched)-rr.Leftover, len(sched))
	case o == nil:
		r.Status, r.Detail = statusDiverged, fmt.Sprintf("the schedule ran, but the program did not end within %d steps", depth)
	default:
		r.Status, r.Detail = statusFixed, "the whole schedule runs and the program ends cleanly: "+o.Message
	}
	return r
}

// report is the report of an entry's failure as it happens now (replayed
// again with stacks), when reports were asked for: nil otherwise, or when
// the replay does not give it.
func (c *rerunner) report(s *session.Session, ex io.Closer, path string, sched schedule.Schedule, o search.Outcome, depth int) *report.Report {
	if !c.reports {
		return nil
	}
	ex.Close()
	r, err := s.Report(search.Bug{Schedule: sched, Outcome: o}, depth)
	if err != nil {
		return nil
	}
	r.Replay, r.Saved = "stdbg replay "+session.ShellQuote(path), path
	return r
}

// corpusExit is the exit status of a corpus run: 2 when an entry could
// not be judged (corrupt, refused, an error) or there was none, else 1
// when an entry reproduces or fails differently, else 0.
func corpusExit(results []rerun) error {
	if len(results) == 0 {
		return usageErr("the corpus holds no entry")
	}
	bad, failing := 0, 0
	for _, r := range results {
		switch {
		case r.Status == statusCorrupt || r.Status == statusError:
			bad++
		case r.failing():
			failing++
		}
	}
	switch {
	case bad > 0:
		return &exitError{code: exitUsage, err: fmt.Errorf("%d of %d entries could not be rerun (corrupt or errors)", bad, len(results))}
	case failing > 0:
		return bugFound
	}
	return nil
}
