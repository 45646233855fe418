package session

import (
	"context"
	"fmt"
	"io"

	"github.com/stdbg/stdbg/engine/corpus"
	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
)

// Rerun is the rerun of a corpus entry (stdbg corpus run): its schedule
// replayed on the program as it is now, and judged against the failure it
// stored.
type Rerun struct {
	// Path is the entry's file, Entry the entry read from it.
	Path  string
	Entry *corpus.Entry
	// Binary, if not empty, is the program to run for an entry of kind
	// binary, named by the user (FromEntry).
	Binary string
	// Options say how to start the program (the timeouts, C's race
	// detector and spurious wake-ups); its output is discarded, and its
	// environment, its early exits and its states are the entry's
	// business.
	Options Options
	// Report builds the report of a failure that reproduces or fails
	// differently, as it happens now (a replay with full stacks): the
	// Verdict's Replayed.Report, with the entry's replay command.
	Report bool
	// Research, if above 0, searches again for the bug of an entry whose
	// schedule diverged, within that many executions: the schedules that
	// begin with the part of the old schedule that still fits. When the
	// same kind of failure turns up, the entry is rewritten with the new
	// (minimised) schedule and reproduces.
	Research int64
}

// RerunEntry rebuilds the program of r's entry when needed, replays the
// entry and judges it. The error says why the entry could not be judged:
// it is refused (a corpus.RefusedError: it names a program outside its
// project, or an environment stdbg does not record), or its program could
// not be built, started or driven. The verdict's detail says when the
// binary that ran is not the one the bug was found in.
func RerunEntry(ctx context.Context, r Rerun) (hunt.Verdict, error) {
	e := r.Entry
	t, err := FromEntry(r.Path, e, r.Binary)
	if err != nil {
		return hunt.Verdict{}, err
	}
	rp, err := EntryReplay(e)
	if err != nil {
		return hunt.Verdict{}, err
	}
	if rp.Lasso() {
		rp.Cycles = rerunCycles
	}
	if rp.MaxDepth == 0 {
		rp.MaxDepth = t.MaxDepth()
	}
	o := r.Options
	o.Stdout, o.Stderr, o.FastExit, o.State = io.Discard, io.Discard, true, rp.Lasso()
	s, err := Start(t, o)
	if err != nil {
		return hunt.Verdict{}, err
	}
	defer s.Close()
	// The report of a lasso's rerun would not say the lasso: reports are
	// of plain schedules.
	rd, err := s.replay(ctx, rp, r.Report && !rp.Lasso())
	if err != nil {
		return hunt.Verdict{}, err
	}
	v := rd.Judge(e.Failure)
	switch {
	case v.Status == hunt.Diverged && r.Research > 0 && !rp.Lasso():
		o := rd.Outcome
		if o == nil || o.Kind != search.Diverged {
			break
		}
		if found := s.research(ctx, r.Path, e, rp.Schedule[:o.Step], rp.MaxDepth, r.Research); found != "" {
			v.Status, v.Detail = hunt.Reproduces, o.Message+"; the bug survives: "+found
		} else {
			v.Detail += fmt.Sprintf("; no %s found again within %d executions", e.Failure.Kind, r.Research)
		}
	case v.Status.Failing() && rd.Report != nil:
		rd.Report.Replay, rd.Report.Saved = "stdbg replay "+ShellQuote(r.Path), r.Path
	}
	if e.Target.BinarySHA256 != "" && !t.Go {
		if h, err := corpus.FileSHA256(t.Binary); err == nil && h != e.Target.BinarySHA256 {
			v.Detail += " (the binary changed since the bug was found)"
		}
	}
	return v, nil
}

// rerunCycles is how many times the rerun of a lasso runs its cycle.
const rerunCycles = 3

// research searches the schedules below prefix for the entry's kind of
// failure (the same place preferred). When it finds one it minimises it,
// rewrites the entry and describes the find; else it returns "". The hunt
// is find's, without saving: the entry is updated here.
func (s *Session) research(ctx context.Context, path string, e *corpus.Entry, prefix schedule.Schedule, depth int, budget int64) string {
	if len(prefix) >= depth {
		return ""
	}
	pick := func(bugs []search.Bug) []search.Bug {
		var best *search.Bug
		for i := range bugs {
			b := &bugs[i]
			if b.Outcome.Kind.String() != e.Failure.Kind {
				continue
			}
			if best == nil || b.Outcome.Where == e.Failure.Where && best.Outcome.Where != e.Failure.Where {
				best = b
			}
		}
		if best == nil {
			return nil
		}
		return []search.Bug{*best}
	}
	res, err := hunt.Run(ctx, hunt.Config{
		Executor: s.checker, Strategy: search.NewDFS(), Prefix: prefix, Pick: pick,
		Request: hunt.Request{MaxDepth: depth, All: true, MaxExecutions: budget, Minimise: true, MinimiseExecutions: budget},
		Explain: func(ctx context.Context, bug search.Bug) (*hunt.Explanation, error) {
			return s.Explain(ctx, bug, depth)
		},
		Nondeterminism: Nondeterminism, Hints: s.ReuseHints,
	})
	if err != nil || len(res.Findings) == 0 || res.Findings[0].Report == nil {
		return ""
	}
	f := res.Findings[0]
	bug, rep := f.Bug, f.Report
	old := e.Schedule
	e.Schedule = bug.Schedule.String()
	e.Original = old
	e.Length = len(bug.Schedule)
	e.Preemptions = rep.Preemptions
	e.Failure = corpus.Failure{Kind: bug.Outcome.Kind.String(), Message: bug.Outcome.Message, Where: bug.Outcome.Where}
	e.Report = rep
	if h, err := corpus.FileSHA256(s.Target.Binary); err == nil {
		e.Target.BinarySHA256 = h
	}
	if err := corpus.Update(path, e); err != nil {
		return ""
	}
	return fmt.Sprintf("%s at %s with Path = %s (entry updated)", bug.Outcome.Kind, bug.Outcome.Where, e.Schedule)
}
