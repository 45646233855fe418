package sthread

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// Result is what Explore found.
type Result struct {
	// Bugs are the bugs found, in order: at most one unless All.
	Bugs []*Bug
	// Stats counts the executions, transitions and states the search
	// explored (the minimisation of the bugs found is not counted).
	Stats search.Stats
	// total counts the minimisation too.
	total search.Stats
	// Complete reports that every schedule within the bounds was explored.
	Complete bool
	// DepthLimited reports that some execution was cut at MaxDepth.
	DepthLimited bool
}

// Bug is a failing schedule and its report.
type Bug struct {
	// Kind is the kind of bug: search.Deadlock, search.Leak,
	// search.AssertionFailure, search.Crash, search.Misuse or
	// search.Timeout.
	Kind search.Kind
	// Message is a one-line description.
	Message string
	// Where identifies the place of the failure (the source line, or the
	// blocked operations and their lines): Kind and Where together are the
	// bug's identity across runs, by which a stored bug is recognised.
	Where string
	// Schedule is the schedule that shows the bug, in its text form.
	Schedule string
	// Report is the full trace: every step with its goroutine, operation
	// and source line, who waits for what, the failing goroutine's stack.
	Report *report.Report

	// Where Check saved it: the entry's path (alreadySaved: it was there
	// before), or why it could not.
	savedAt      string
	alreadySaved bool
	saveErr      error
}

// String returns the report as text.
//
//go:norace
func (b *Bug) String() string {
	var sb strings.Builder
	if b.Report != nil {
		b.Report.WriteText(&sb)
	} else {
		fmt.Fprintf(&sb, "%s\nPath = %s\n", b.Message, b.Schedule)
	}
	return sb.String()
}

// Check explores the schedules of f, which runs as goroutine 1 of every
// execution with the goroutines it starts with Go, and fails t with a
// report for each bug found: deadlocks, goroutines leaked (blocked when f
// returns), failed Asserts and TB failures, panics, misuses of the
// primitives (unlock of an unlocked mutex, close of a closed channel, ...)
// and transition timeouts. Each bug's schedule is first shrunk to the
// shortest that shows it, with the fewest preemptions (see NoMinimise), as
// stdbg find does; its report ends with the command that replays it (see
// ReplayEnv).
//
// Each bug found is saved in the package's corpus, as a file under
// testdata/stdbg/<test name>/ (see NoSave and NoSaveEnv), and every later
// Check of the same test first replays the schedules stored there, before
// any search: one that still fails fails the test at once, without
// searching; one that now runs cleanly (fixed) or no longer fits the
// function (diverged) is logged, and the search goes on. Commit the files
// to keep the bugs as regression tests, the way Go's fuzzing keeps its
// corpus.
//
// f must be deterministic apart from its goroutines' interleaving: it runs
// many times and must set up the state it checks each time. While Check
// runs, every goroutine that uses sthread objects of f must be started with
// Go; do not call t.Parallel in a test that calls Check. Checks run one at a
// time in a process.
//
//go:norace
func Check(t testing.TB, f func(), opts ...Option) {
	t.Helper()
	cfg := newConfig(opts)
	if inBatch() {
		// Started by stdbg test to search several tests in turn: this
		// one, if stdbg says so, then the next.
		serveInBatch(t.Name(), f, cfg)
		return
	}
	if rt.Searching() {
		// Started by stdbg find to search in process.
		os.Exit(serveSearchOrDie(f, cfg))
	}
	if rt.Remote() {
		// Started by stdbg find: this process is one execution.
		os.Exit(runRemoteOrDie(f, cfg))
	}
	if s, ok := os.LookupEnv(ReplayEnv); ok && !cfg.hasSchedule {
		cfg.schedule, cfg.hasSchedule = s, true
	}
	if cfg.hasSchedule {
		replay(t, cfg.schedule, f, cfg)
		return
	}
	dir := corpusDir(t.Name())
	start := time.Now()
	if replayCorpus(t, dir, f, cfg, start) {
		return
	}
	if b := cfg.req.Budget; b > 0 {
		// The stored schedules' replays took their part of the budget.
		cfg.req.Budget = max(b-time.Since(start), time.Nanosecond)
	}
	res, err := explore(f, cfg, t)
	stats := report.FormatStats(report.FromStats(res.total))
	for _, b := range res.Bugs {
		t.Errorf("sthread.Check found a bug:\n%s%sReplay: %s\n%s", b, b.footer(), replayCommand(t, b.Schedule), stats)
	}
	if err != nil {
		t.Fatalf("sthread.Check: %v\n%s", err, stats)
	}
}

// Explore is Check for callers that want the result rather than a failed
// test: it returns the bugs found, with their reports, and the statistics.
// The error reports a search that could not go on (the program behaves
// differently under the same schedule, or is not checkable), with the
// partial result.
//
//go:norace
func Explore(f func(), opts ...Option) (*Result, error) {
	cfg := newConfig(opts)
	if cfg.hasSchedule {
		b, err := runSchedule(cfg.schedule, f, cfg)
		res := &Result{Stats: search.Stats{Executions: 1}}
		if b != nil {
			res.Bugs = append(res.Bugs, b)
		}
		return res, err
	}
	return explore(f, cfg, nil)
}

// Replay runs schedule once on f and fails t if the execution ends in a bug,
// with its report; otherwise it logs the trace. It fails t too if the
// schedule does not parse or does not fit f (a goroutine it names does not
// exist or is blocked at that step).
//
//go:norace
func Replay(t testing.TB, schedule string, f func(), opts ...Option) {
	t.Helper()
	replay(t, schedule, f, newConfig(opts))
}

// RunSchedule runs schedule once on f, then goes on with the default policy
// until f returns, and returns the bug the execution ends in, or nil if it
// ends cleanly. The error reports a schedule that does not parse or does
// not fit f.
//
//go:norace
func RunSchedule(schedule string, f func(), opts ...Option) (*Bug, error) {
	return runSchedule(schedule, f, newConfig(opts))
}

//go:norace
func replay(t testing.TB, sched string, f func(), cfg *config) {
	t.Helper()
	rr, err := runOnce(sched, f, cfg, true)
	if err != nil {
		t.Fatalf("sthread: replaying %q: %v", sched, err)
		return
	}
	var sb strings.Builder
	rr.rep.WriteText(&sb)
	if rr.bug != nil {
		t.Errorf("sthread: replaying %q:\n%s", sched, sb.String())
		return
	}
	t.Logf("sthread: replayed %q:\n%s", sched, sb.String())
}

//go:norace
func runSchedule(sched string, f func(), cfg *config) (*Bug, error) {
	rr, err := runOnce(sched, f, cfg, true)
	if err != nil {
		return nil, err
	}
	return rr.bug, nil
}

// replayed is the outcome of one run of a given schedule.
type replayed struct {
	bug *Bug // nil if the execution ended cleanly
	rep *report.Report
}

// runOnce runs sched on f once and builds the report of the execution.
//
//go:norace
func runOnce(sched string, f func(), cfg *config, logs bool) (*replayed, error) {
	if f == nil {
		return nil, errors.New("nil function")
	}
	s, err := schedule.Parse(sched)
	if err != nil {
		return nil, err
	}
	checkMu.Lock()
	defer checkMu.Unlock()
	rd, err := describe(context.Background(), f, cfg, hunt.Replay{Schedule: s, MaxDepth: cfg.req.MaxDepth}, logs)
	if err != nil {
		return nil, err
	}
	if rd.Diverged() {
		return nil, fmt.Errorf("the schedule does not fit: %s", rd.Outcome.Message)
	}
	rep := rd.Report
	out := &replayed{rep: rep}
	if o := rd.Outcome; o != nil && o.Kind.IsBug() {
		out.bug = &Bug{Kind: o.Kind, Message: rep.Message, Where: o.Where, Schedule: rd.Executed.String(), Report: rep}
	}
	return out, nil
}

// describe runs r on f once with full stacks (a lasso's with the states
// of its cycle) and builds its report. A replay of a plain schedule
// publishes its steps for a debugger when logs is set. ctx ends the
// replay: between two steps, and at its deadline a step still running
// then, which the runner cuts (the error wraps search.ErrStepCut).
// checkMu must be held.
//
//go:norace
func describe(ctx context.Context, f func(), cfg *config, r hunt.Replay, logs bool) (*hunt.Replayed, error) {
	rc := cfg.runtime(rt.ReportDepth, r.Lasso())
	rc.Logs = logs
	rc.Once = true
	// A user stopped in a debugger is not a transition that runs for
	// ever.
	rc.NoWatch = logs && traced()
	run, chk := rt.Start(f, rc)
	defer run.Stop()
	if d, ok := ctx.Deadline(); ok {
		run.SetDeadline(d.UnixNano())
	}
	e, err := chk.Begin()
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", rt.FuncName(f), err)
	}
	ex := run.Begun()
	defer e.Close()
	var exec search.Execution = e
	var dbg *debugExec
	if logs && !r.Lasso() {
		dbg = newDebugExec(e, ex, r.Schedule)
		exec = dbg
	}
	rd, err := r.Run(ctx, exec, func(o *search.Outcome) *report.Report { return ex.Report(e, o) })
	if err != nil {
		return nil, fmt.Errorf("running %s: %w", rt.FuncName(f), err)
	}
	if dbg != nil {
		outcome := ""
		if o := rd.Outcome; o != nil && o.Kind.IsBug() {
			outcome = o.Kind.String() + ": " + o.Message
		}
		dbg.finish(outcome)
	}
	if !r.Lasso() && rd.Outcome != nil && !rd.Diverged() && !rd.Executed.Equal(r.Schedule) {
		rd.Report.Executed = rd.Executed.String()
	}
	return rd, nil
}

// replayCommand is the command line that replays sched in the test t.
//
//go:norace
func replayCommand(t testing.TB, sched string) string {
	parts := strings.Split(t.Name(), "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return fmt.Sprintf("%s='%s' go test -run '%s' %s", ReplayEnv, sched, strings.Join(parts, "/"), packageDir())
}

// packageDir is the directory of the test's package relative to its
// module's root ("./examples/go"), or "." when it cannot tell.
//
//go:norace
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "."
		}
		dir = parent
	}
}
