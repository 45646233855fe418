package gotest

import (
	"context"
	"path/filepath"
	"time"

	"github.com/stdbg/stdbg/engine/corpus"
	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/frontend/session"
)

// SearchWith returns a Config.Search for a program that runs gotest
// without stdbg's command line: each test gets the exhaustive search
// (depth first, with DPOR) within budget (0: none), inside its process,
// its bugs minimised and, unless noSave, saved in the test's corpus
// (testdata/stdbg/TestName in its package). stdbg test passes its own,
// which has the settings of stdbg find.
func SearchWith(budget time.Duration, noSave bool) func(context.Context, *session.Session, *Test) (*Searched, error) {
	return func(ctx context.Context, s *session.Session, t *Test) (*Searched, error) {
		spec, _, err := search.Spec{}.Normal()
		if err != nil {
			return nil, err
		}
		f := &session.Find{
			Plan: session.Plan{Request: hunt.Request{Search: spec, MaxDepth: session.GoMaxDepth, Budget: budget, Minimise: true,
				MinimiseExecutions: 20000}, Jobs: t.Jobs, InTarget: true},
		}
		if !noSave {
			dir := filepath.Join(t.Target.Source, corpus.Root, t.Name)
			f.Corpus = &hunt.Corpus{Dir: dir, Target: t.Target.EntryTarget(dir),
				Search:      corpus.Search{Strategy: spec.Name(), Reduction: spec.Reduction},
				ReplaySaved: func(path string) string { return "stdbg replay " + session.ShellQuote(path) }}
		}
		f.Reported = t.Found
		var notes []string
		f.Hooks.Note = func(msg string) { notes = append(notes, msg) }
		f.Warn = f.Hooks.Note
		found, err := s.Find(ctx, f)
		if found == nil {
			return nil, err
		}
		out := &Searched{Complete: found.Search.Complete && !found.Interrupted, Notes: notes, Coverage: found.Coverage,
			Stats: report.FormatStats(report.FromStats(found.Stats)), Executions: found.Stats.Executions}
		for _, fd := range found.Findings {
			if fd.Report != nil {
				out.Bugs = append(out.Bugs, fd.Report)
			}
		}
		return out, err
	}
}
