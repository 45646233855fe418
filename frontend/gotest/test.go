package gotest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/frontend/session"
	"github.com/stdbg/stdbg/target/targetsearch"
)

// test explores one test of the package's test binary base. A test
// whose search found no bug still has to run once as go test runs it: its
// result is then pending (res.pending), and finish completes it with that
// run.
func (pk *pkgRun) test(ctx context.Context, base *session.Target, name string) *result {
	r, cfg := pk.r, pk.r.cfg
	start := time.Now()
	pattern := session.TestPattern(name)
	if r.run.rest != "" {
		pattern += "/" + r.run.rest
	}
	t := base.WithRun(pattern)
	t.Args = append(t.Args, pk.extra()...)
	pk.out.run(name, false)
	res := &result{Name: name}
	defer func() { res.Elapsed = time.Since(start) }()

	var found *Searched
	judged := ""
	for range max(1, cfg.Count) {
		var err error
		if found, err = pk.search(ctx, t, name); err != nil {
			if ctx.Err() != nil {
				res.Status, res.Detail = statusError, "interrupted before its search ended"
				return res
			}
			if errors.Is(err, search.ErrCannotJudge) {
				// Code outside the check (a goroutine started as the
				// package initialised) may wake what the search saw
				// blocked: no bug is claimed, and the test still runs
				// as go test runs it.
				_, why, _ := strings.Cut(oneLine(err.Error()), search.ErrCannotJudge.Error()+": ")
				judged, found = why, &Searched{}
				break
			}
			res.Status, res.Detail = statusError, oneLine(err.Error())
			return res
		}
		if len(found.Bugs) > 0 || ctx.Err() != nil {
			break
		}
	}
	if len(found.Bugs) > 0 {
		res.Status, res.Detail, res.bugs = statusBug, found.Bugs[0].Banner, found.Bugs
		for i, b := range found.Bugs {
			res.Lines = append(res.Lines, bugLines(b, i > 0)...)
		}
		if cfg.Verbose {
			res.Lines = append(res.Lines, searchLines(found)...)
		}
		return res
	}
	if ctx.Err() != nil {
		// Stopped (a signal): what was searched is said, nothing more runs.
		res.Status, res.Detail = statusIncomplete, covered(found)+" (interrupted)"
		return res
	}
	// What the search left of the test's budget bounds its run as go test
	// runs it.
	left := cfg.Budget - time.Since(start)
	res.pending = &pending{found: found, judged: judged, pattern: pattern, target: t, bound: nativeBound(cfg.Budget, left)}
	return res
}

// pending is what a test whose search found no bug waits for: its run as
// go test runs it.
type pending struct {
	found   *Searched
	judged  string          // why stdbg cannot judge the test ("": it can)
	pattern string          // -test.run's pattern for the test alone
	target  *session.Target // the test's target (its binary, directory, environment)
	bound   time.Duration   // the most its run may take (nativeBound; 0: -timeout's)
}

// extra are the test binary's flags that every run of a test takes:
// -short, and -skip when it selects subtests.
func (pk *pkgRun) extra() []string {
	var extra []string
	if pk.r.cfg.Short {
		extra = append(extra, "-test.short")
	}
	if pk.r.skip.rest != "" {
		extra = append(extra, "-test.skip="+pk.r.cfg.Skip)
	}
	return extra
}

// runPending runs the tests of results whose searches found no bug as go
// test runs them, and completes their results: all in one process of the
// test binary first, as go test runs a package; then each test that did
// not pass or skip itself there (or that the process ended before) alone
// in a process of its own, as go test -run would, whose run is its
// verdict. A test that hung there for the whole -timeout needs no second
// run. With a budget, each run is bounded by what the test's search left
// of it (nativeBound), the shared run by the sum of its tests' bounds.
func (pk *pkgRun) runPending(ctx context.Context, results []*result) {
	var names []string
	var t *session.Target
	var bound time.Duration
	for _, res := range results {
		if res.pending != nil {
			names = append(names, res.Name)
			t = res.pending.target
			bound += res.pending.bound
		}
	}
	if len(names) == 0 {
		return
	}
	cfg := pk.r.cfg
	var runs map[string]*nativeRun
	if ctx.Err() == nil {
		var outside []string
		runs, outside = runNatives(ctx, t.Binary, t.Dir, names, pk.r.run.rest, pk.extra(), t.Env, cfg.Timeout, bound)
		pk.out.output("", outside)
	}
	for _, res := range results {
		p := res.pending
		if p == nil {
			continue
		}
		res.pending = nil
		if ctx.Err() != nil {
			res.Status, res.Detail = statusIncomplete, covered(p.found)+" (interrupted)"
			continue
		}
		native := runs[res.Name]
		if native == nil {
			start := time.Now()
			native = runNative(ctx, p.target.Binary, p.target.Dir, res.Name, p.pattern, pk.extra(), p.target.Env, cfg.Timeout, p.bound)
			native.took = time.Since(start)
		}
		res.Elapsed += native.took
		pk.finish(res, p, native)
	}
}

// finish completes the result of a test whose search found no bug with its
// run as go test runs it.
func (pk *pkgRun) finish(res *result, p *pending, native *nativeRun) {
	cfg := pk.r.cfg
	name := res.Name
	res.native = native.testOutput(name)
	switch {
	case native.status == "SKIP":
		res.Status, res.Detail = statusSkip, native.skipReason(name)
		return
	case native.cut > 0:
		// No verdict: what the search covered stands, and the run that
		// was to complete it was cut.
		res.Status = statusIncomplete
		res.Detail = fmt.Sprintf("%s; its run as go test runs it was cut by the budget after %s", covered(p.found), native.cut)
		if cfg.Verbose {
			res.Lines = searchLines(p.found)
		}
		return
	case native.status != "PASS":
		res.Status = statusFail
		// What the search covered stays said: the run as go test runs
		// it met a schedule, or a stretch of real time, that it did not.
		res.Detail = "no schedule explored failed (" + covered(p.found) + "), but as go test runs it " + native.why
		if !cfg.Verbose && !cfg.JSON {
			res.Lines = res.native
		}
		return
	}
	if p.judged != "" {
		res.Status, res.Detail = statusUnjudged, "cannot judge: "+p.judged
		return
	}
	res.Status, res.Detail = statusOK, covered(p.found)
	if !p.found.Complete {
		res.Status = statusIncomplete
	}
	if cfg.Verbose {
		res.Lines = searchLines(p.found)
	}
}

// search runs one search of the test.
func (pk *pkgRun) search(ctx context.Context, t *session.Target, name string) (*Searched, error) {
	// A search holds its thread: the processes it starts are placed
	// beside it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// The search runs inside a process of its own (a session's first
	// process would only wait): the session starts one when a run from
	// here needs it (a fallback, a replay that confirms a bug).
	o := pk.r.cfg.Options
	o.DeferStart = true
	if b := pk.batch; b != nil {
		// Searched in a process shared with the package's other tests
		// when it can be.
		o.Served = func(ctx context.Context, cfg targetsearch.Config) *targetsearch.Found {
			return b.served(ctx, name, cfg)
		}
		defer b.searched(name)
	}
	s, err := session.Start(t, o)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return pk.r.cfg.Search(ctx, s, &Test{Package: pk.p.ImportPath, Dir: pk.p.Dir, Name: name, Target: t, Jobs: pk.r.jobs,
		Found: func(f *hunt.Finding) {
			if line := FoundLine(f); line != "" {
				pk.out.line(name, line, false)
			}
		}})
}

// FoundLine is the line that tells of a bug found before its
// minimisation ("" for a finding that is final): its kind, where it was
// saved and how long its minimisation may take; the test's result gives
// its report.
func FoundLine(f *hunt.Finding) string {
	if !f.Minimising {
		return ""
	}
	line := fmt.Sprintf("    stdbg: %s found: %s; Path = %s", f.Bug.Outcome.Kind, report.Summary(f.Bug.Outcome.Message), f.Bug.Schedule)
	if f.Saved != "" {
		line += "; saved " + f.Saved
	}
	line += "; minimising its schedule"
	if f.MinimiseFor > 0 {
		line += fmt.Sprintf(" (for at most %s)", f.MinimiseFor.Round(100*time.Millisecond))
	}
	return line
}

// bugLines are the lines below a BUG: its report (but the banner, on the
// status line, for the first), how it was minimised, where it was saved
// and the command that replays it.
func bugLines(b *report.Report, banner bool) []string {
	var sb strings.Builder
	b.WriteText(&sb)
	text := sb.String()
	if !banner {
		text = strings.TrimPrefix(text, b.Banner+"\n")
	}
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if m := b.Minimised; m != nil {
		lines = append(lines, m.String())
	}
	switch {
	case b.Saved != "" && b.AlreadySaved:
		lines = append(lines, "Already in the corpus: "+b.Saved)
	case b.Saved != "":
		lines = append(lines, "Saved "+b.Saved)
	}
	if b.Replay != "" {
		lines = append(lines, "Replay: "+b.Replay)
	}
	return lines
}

// searchLines say what a search covered, what it could not do, and its
// statistics (-v).
func searchLines(f *Searched) []string {
	lines := []string{f.Coverage.Line}
	for _, n := range f.Notes {
		lines = append(lines, "Note: "+n)
	}
	return append(lines, f.Stats)
}

// covered says in a few words what a search that found no bug covered.
func covered(f *Searched) string {
	return fmt.Sprintf("%s; %d %s", f.Coverage.Short(), f.Executions, plural(int(f.Executions), "execution"))
}

// oneLine keeps the first line of a message.
func oneLine(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return first
}
