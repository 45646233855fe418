package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/stdbg/stdbg/corpus"
	"github.com/stdbg/stdbg/report"
	"github.com/stdbg/stdbg/schedule"
	"github.com/stdbg/stdbg/search"
)

// This file makes corpus entries from the bugs find reports, and
// researches entries whose schedule no longer fits.

// newEntry describes a bug found by find for the corpus.
func newEntry(t *target, dir string, r *report.Report, bug search.Bug, original schedule.Schedule, maxDepth int, preemptions int) *corpus.Entry {
	e := &corpus.Entry{
		Format:       corpus.Format,
		StdbgVersion: version,
		Created:      time.Now().UTC().Truncate(time.Second),
		Search:       corpus.Search{Strategy: "dfs", MaxDepth: maxDepth, Reduction: "none"},
		Failure:      corpus.Failure{Kind: bug.Outcome.Kind.String(), Message: bug.Outcome.Message, Where: bug.Outcome.Where},
		Schedule:     bug.Schedule.String(),
		Length:       len(bug.Schedule),
		Preemptions:  preemptions,
		Report:       r,
		Target:       corpus.Target{Args: t.args, Env: append([]string(nil), t.env...)},
	}
	if !original.Equal(bug.Schedule) {
		e.Original = original.String()
	}
	if bug.Cycle != nil {
		e.Cycle = bug.Cycle.String()
	}
	switch {
	case t.goPkg && t.run != "":
		e.Target.Kind, e.Target.Run = "go-test", t.run
		e.Target.Source = corpus.RelSource(dir, t.source)
	case t.goPkg:
		e.Target.Kind = "go-program"
		e.Target.Source = corpus.RelSource(dir, t.source)
	case t.source != "":
		e.Target.Kind = "c-source"
		e.Target.Source = corpus.RelSource(dir, t.source)
		e.Target.Memory = t.memory
	default:
		e.Target.Kind = "binary"
		e.Target.Binary = corpus.RelSource(dir, t.binary)
	}
	if h, err := corpus.FileSHA256(t.binary); err == nil {
		e.Target.BinarySHA256 = h
	}
	return e
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
