package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/stdbg/stdbg/corpus"
	"github.com/stdbg/stdbg/hunt"
	"github.com/stdbg/stdbg/schedule"
	"github.com/stdbg/stdbg/search"
)

// This file makes corpus entries from the bugs find reports, and
// researches entries whose schedule no longer fits.

// entryTarget is the target of the corpus entries of find's bugs, saved
// in dir.
func entryTarget(t *target, dir string) corpus.Target {
	ct := corpus.Target{Args: t.args, Env: append([]string(nil), t.env...)}
	switch {
	case t.goPkg && t.run != "":
		ct.Kind, ct.Run = "go-test", t.run
		ct.Source = corpus.RelSource(dir, t.source)
	case t.goPkg:
		ct.Kind = "go-program"
		ct.Source = corpus.RelSource(dir, t.source)
	case t.source != "":
		ct.Kind = "c-source"
		ct.Source = corpus.RelSource(dir, t.source)
		ct.Memory = t.memory
	default:
		ct.Kind = "binary"
		ct.Binary = corpus.RelSource(dir, t.binary)
	}
	return ct
}

// researchEntry searches the schedules below prefix for the entry's kind of
// failure (the same place preferred). When it finds one it minimises it,
// rewrites the entry and describes the find; else it returns "". The hunt
// is find's, without saving: the entry is updated here.
func (a *app) researchEntry(s *session, path string, e *corpus.Entry, prefix schedule.Schedule, depth int, budget int64) string {
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
		Executor: s.chk, Strategy: search.NewDFS(), Prefix: prefix, Pick: pick,
		Options:  search.Options{MaxDepth: depth, All: true, MaxExecutions: budget},
		Minimise: true, MinimiseExecutions: budget,
		Explain:        func(bug search.Bug) (*hunt.Explanation, error) { return a.replayStacks(s, bug, depth) },
		Nondeterminism: programNondeterminism, Hints: func() []string { return reuseHints(s) },
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
	if h, err := corpus.FileSHA256(s.binary); err == nil {
		e.Target.BinarySHA256 = h
	}
	if err := corpus.Update(path, e); err != nil {
		return ""
	}
	return fmt.Sprintf("%s at %s with Path = %s (entry updated)", bug.Outcome.Kind, bug.Outcome.Where, e.Schedule)
}

// testPattern turns a test name (with subtests: "TestBank/two_accounts")
// into the -run pattern that selects exactly it.
func testPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}
