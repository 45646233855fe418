package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/stdbg/stdbg/corpus"
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
// rewrites the entry and describes the find; else it returns "".
func (a *app) researchEntry(s *session, path string, e *corpus.Entry, prefix schedule.Schedule, depth int, budget int64) string {
	if len(prefix) >= depth {
		return ""
	}
	res, err := search.Explore(context.Background(), search.Under(s.chk, prefix), search.NewDFS(),
		search.Options{MaxDepth: depth - len(prefix), All: true, MaxExecutions: budget})
	if err != nil {
		return ""
	}
	var pick *search.Bug
	for i := range res.Bugs {
		b := &res.Bugs[i]
		if b.Outcome.Kind.String() != e.Failure.Kind {
			continue
		}
		if pick == nil || b.Outcome.Where == e.Failure.Where {
			pick = b
		}
	}
	if pick == nil {
		return ""
	}
	bug := search.Bug{Schedule: append(append(schedule.Schedule{}, prefix...), pick.Schedule...), Outcome: pick.Outcome}
	if m, err := search.Minimise(context.Background(), s.chk, bug, search.MinimiseOptions{MaxDepth: depth,
		MaxExecutions: budget, Exhaustive: true}); err == nil {
		bug.Schedule, bug.Outcome = m.Schedule, m.Outcome
	}
	rep, err := a.explain(s, bug, depth)
	if err != nil {
		return ""
	}
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
