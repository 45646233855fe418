package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/stdbg/stdbg/engine/corpus"
	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/ltl"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/frontend/session"
	"github.com/stdbg/stdbg/internal/symbolize"
	"github.com/stdbg/stdbg/output/schedprof"
	"github.com/stdbg/stdbg/output/stategraph"
)

// This file holds what is particular to find's search: the recorders that
// watch it (--profile, --graph), where it runs (inside a Go target, or
// from here, divided among copies of the program), and the result it
// prints and writes.

// finder is one find: its target and settings, and how its search went.
type finder struct {
	a        *app
	t        *session.Target
	s        *session.Session
	p        *plan
	outs     findOutputs
	maxDepth int
	prog     *progressLine
	prof     *schedprof.Recorder
	graph    *stategraph.Recorder
	// corpusDir, if set, is where the bugs are saved unless --corpus
	// says otherwise (stdbg test: the test's own directory).
	corpusDir string
	// shown reports that the bugs' reports were printed as they came.
	shown bool
}

// watch wraps the session's executor in the recorders asked for, for the
// search.
func (f *finder) watch(ex search.Executor, syms *symbolize.Symbolizer) (search.Executor, func()) {
	if f.a.s.Profile != "" {
		f.prof = schedprof.NewRecorder(ex, syms)
		f.prof.Binary = f.t.Binary
		ex = f.prof
	}
	if f.outs.graph != "" {
		f.graph = stategraph.NewRecorder(ex, syms, graphLimit, f.a.s.stateful())
		ex = f.graph
	}
	return ex, func() {}
}

// sessionFind is the session's Find with the settings: the plan, the
// reports and the corpus; what the search does otherwise than asked is
// said on stderr.
func (f *finder) sessionFind() *session.Find {
	a, t, st := f.a, f.t, &f.a.s
	quiet := st.Quiet
	pl := f.p.Plan
	pl.MaxDepth = f.maxDepth
	fd := &session.Find{
		Plan:    pl,
		Visited: st.Visited, Livelock: st.Livelock,
		Hooks: session.Hooks{Progress: f.prog.update, Minimising: f.prog.minimising,
			Note: func(msg string) {
				if quiet && strings.HasPrefix(msg, "the program ended its process") {
					return
				}
				f.prog.clear()
				fmt.Fprintln(a.stderr, "stdbg: "+msg)
			}},
		Warn:  func(msg string) { f.prog.clear(); fmt.Fprintln(a.stderr, "stdbg:", msg) },
		Watch: f.watch,
		// A profile's stacks; the minimisation needs none.
		Stacks:              st.Profile != "",
		MinimiseNoReduction: st.Reduction == search.ReductionNone,
	}
	if !quiet {
		fd.Hooks.OnBug = f.announcer()
	}
	if !st.JSON {
		fd.Reported = f.reporter()
	}
	if text := st.LTL; text != "" {
		fd.LTL, _ = ltl.Parse(text) // checked with the settings
	}
	if !st.NoSave {
		dir := st.Corpus
		switch {
		case f.corpusDir != "":
			dir = f.corpusDir
		case dir == "":
			dir = corpus.DefaultDir(t.Arg)
		}
		c := &hunt.Corpus{Dir: dir, Target: t.EntryTarget(dir), Version: version,
			Search:      corpus.Search{Strategy: f.p.Search.Name(), Reduction: f.p.Search.Reduction},
			ReplaySaved: func(path string) string { return "stdbg replay " + session.ShellQuote(path) }}
		if f.p.seeded() {
			c.Search.Seed = int64(f.p.Search.Seed)
		}
		c.BinarySHA256, _ = corpus.FileSHA256(t.Binary)
		fd.Corpus = c
	}
	return fd
}

// announcer says each distinct bug the moment it is found, on stderr, so
// that a long run tells at once what it found, with its schedule and the
// command that replays it; a bug whose report follows at once on stdout
// (the first bug, without --all or --json) is said in a line.
func (f *finder) announcer() func(search.Bug) {
	a, t, prog := f.a, f.t, f.prog
	var mu sync.Mutex
	said := map[string]bool{}
	return func(b search.Bug) {
		mu.Lock()
		defer mu.Unlock()
		if said[b.Outcome.Key()] {
			return
		}
		said[b.Outcome.Key()] = true
		prog.clear()
		found := "bug found"
		if b.By != "" {
			found = "bug found by " + b.By
		}
		if !a.s.NoMinimise && b.Cycle == nil && !a.s.All && !a.s.JSON {
			// Its report, with its Path, follows at once on stdout, then
			// the minimised one.
			fmt.Fprintf(a.stderr, "stdbg: %s (%s): %s; reporting it, then minimising its schedule of %s\n", found, b.Outcome.Kind,
				report.Summary(b.Outcome.Message), plural(len(b.Schedule), "step"))
			return
		}
		// The reports come when the search ends (--all goes on, --json
		// prints one document): the schedule is told now.
		sched := search.LassoString(b.Schedule, b.Cycle)
		if len(b.Schedule) > 40 { // the path once, in the command that replays it
			fmt.Fprintf(a.stderr, "stdbg: %s (%s): %s; %d steps (replay: %s)\n", found, b.Outcome.Kind, report.Summary(b.Outcome.Message),
				len(b.Schedule), t.ReplayCommand(sched))
			return
		}
		fmt.Fprintf(a.stderr, "stdbg: %s (%s): %s; Path = %s (replay: %s)\n", found, b.Outcome.Kind, report.Summary(b.Outcome.Message), sched,
			t.ReplayCommand(sched))
	}
}

// reporter prints each bug's report on stdout as soon as the hunt tells
// of it: a bug to be minimised as found (explained and saved), then, when
// its minimisation ends, the minimised report in full if the schedule
// changed, else what the minimisation proved. The result printed at the
// end then holds the search's verdict alone.
func (f *finder) reporter() func(*hunt.Finding) {
	c := &findCmd{app: f.a}
	var first *hunt.Finding // the bug as found, being minimised
	shown := 0
	return func(fd *hunt.Finding) {
		f.shown = true
		r := fd.Report
		if r == nil {
			return
		}
		f.prog.clear()
		w := f.a.stdout
		if first != nil && !fd.Minimising {
			// The end of the minimisation of the bug reported before.
			before := first
			first = nil
			if fd.Bug.Schedule.Equal(before.Bug.Schedule) {
				if r.Minimised != nil {
					fmt.Fprintln(w, r.Minimised)
				}
				for _, n := range r.Notes[min(len(before.Report.Notes), len(r.Notes)):] {
					fmt.Fprintln(w, "Note: "+n)
				}
				return
			}
			fmt.Fprintln(w)
			fmt.Fprintln(w, "Minimised:")
			c.printReport(r, fd.Replaced)
			return
		}
		if shown > 0 {
			fmt.Fprintln(w)
		}
		shown++
		c.printReport(r, "")
		if fd.Minimising {
			first = fd
			bound := ""
			if fd.MinimiseFor > 0 {
				bound = fmt.Sprintf(" for at most %s (%d times the search's time)", fd.MinimiseFor.Round(100*time.Millisecond),
					hunt.MinimiseFactor)
			}
			fmt.Fprintf(w, "Minimising its schedule of %s%s...\n", plural(len(fd.Bug.Schedule), "step"), bound)
		}
	}
}

// result is the document find prints.
func (f *finder) result(found *session.Found) *findResult {
	res, cov := &found.Result, &found.Coverage
	t, p := f.t, f.p
	out := &findResult{Target: t.Arg, Binary: t.Binary, MaxDepth: f.maxDepth, Stats: report.FromStats(res.Stats),
		Complete: res.Search.Complete, DepthLimited: res.Search.DepthLimited, Interrupted: res.Interrupted, Bugs: []*report.Report{},
		Strategy: p.Search.Strategy, Sampled: p.sampled(), Coverage: cov.Line, Scope: cov.Scope, Bounds: cov.Bounds,
		Notes: res.Notes, SearchedIn: "stdbg", scopeNote: cov.ScopeNote, NotModelled: cov.NotModelled, Loops: res.Search.Loops}
	if found.InTarget {
		out.SearchedIn = "target"
	}
	switch {
	case t.MemoryLogged:
		out.MemoryChecked = true
	case t.Memory:
		out.MemoryPoints, out.MemoryChecked = true, true
	}
	if p.seeded() {
		out.Seed = p.Search.Seed
	}
	for _, fd := range res.Findings {
		out.Bugs = append(out.Bugs, fd.Report)
	}
	out.shown = f.shown
	return out
}

// write prints the result of a find and writes the files asked for.
func (c *findCmd) write(out *findResult, f *finder) error {
	if c.s.JSON {
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(c.stdout, string(b))
	} else {
		c.printFind(out)
	}
	outs := f.outs
	if outs.sarif != "" {
		if err := writeSARIF(outs.sarif, out.Bugs, nil); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	}
	if f.graph != nil {
		if err := writeGraph(outs.graph, f.graph, f.t.Arg); err != nil {
			return err
		}
	}
	if outs.html != "" {
		summary := []string{out.Coverage}
		if out.Complete {
			summary = append(summary, out.scopeNote)
		}
		if err := writeHTML(outs.html, f.t.Arg, out.Bugs, append(summary, report.FormatStats(out.Stats))); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	}
	return nil
}
