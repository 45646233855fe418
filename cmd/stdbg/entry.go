package main

import (
	"context"
	"fmt"

	"github.com/stdbg/stdbg/corpus"
	"github.com/stdbg/stdbg/hunt"
	"github.com/stdbg/stdbg/schedule"
	"github.com/stdbg/stdbg/search"
	"github.com/stdbg/stdbg/session"
)

// This file researches corpus entries whose schedule no longer fits.

// researchEntry searches the schedules below prefix for the entry's kind of
// failure (the same place preferred). When it finds one it minimises it,
// rewrites the entry and describes the find; else it returns "". The hunt
// is find's, without saving: the entry is updated here.
func researchEntry(s *session.Session, path string, e *corpus.Entry, prefix schedule.Schedule, depth int, budget int64) string {
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
	res, err := hunt.Run(context.Background(), hunt.Config{
		Executor: s.Checker, Strategy: search.NewDFS(), Prefix: prefix, Pick: pick,
		Options:  search.Options{MaxDepth: depth, All: true, MaxExecutions: budget},
		Minimise: true, MinimiseExecutions: budget,
		Explain:        func(bug search.Bug) (*hunt.Explanation, error) { return s.Explain(bug, depth) },
		Nondeterminism: session.Nondeterminism, Hints: s.ReuseHints,
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
