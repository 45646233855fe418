package sthread

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/checker"
	"github.com/stdbg/stdbg/report"
	"github.com/stdbg/stdbg/rtnames"
	"github.com/stdbg/stdbg/schedule"
	"github.com/stdbg/stdbg/search"
)

// ReplayEnv names the environment variable that makes Check run one
// schedule instead of searching: the schedule printed with a bug, e.g.
//
//	STDBG_REPLAY_SCHEDULE='1;1;2' go test -run '^TestTransfer$' ./bank
//
// A program whose main calls Run replays it the same way. A replay
// publishes each step for a debugger (see stdbg replay --dlv).
const ReplayEnv = rtnames.ReplayEnv

// Defaults of the options.
const (
	DefaultMaxDepth = 1000
	DefaultTimeout  = 5 * time.Second
)

// An Option tunes Check, Explore, Replay and RunSchedule.
type Option func(*config)

type config struct {
	// shown is the function whose first line shows the checked function's
	// return (the test's body for CheckTest); nil: the checked function.
	shown         func()
	maxDepth      int
	all           bool
	timeout       time.Duration
	schedule      string
	hasSchedule   bool
	maxExecutions int64
	noSave        bool
	noMinimise    bool
	strategy      search.Strategy
	noReduction   bool
	budget        time.Duration

	visited  bool   // stateful search
	livelock bool   // report fair non-progress cycles
	ltl      string // an LTL formula to check
}

//go:norace
func newConfig(opts []Option) *config {
	c := &config{maxDepth: DefaultMaxDepth, timeout: DefaultTimeout}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	return c
}

// MaxDepth bounds the number of transitions of one execution (default
// DefaultMaxDepth); an execution that reaches it is cut, which is not a
// bug. n <= 0 removes the bound: the search then only ends if every
// execution does.
//
//go:norace
func MaxDepth(n int) Option { return func(c *config) { c.maxDepth = n } }

// All keeps exploring after the first bug and reports every distinct bug
// (by kind and place) once, with the first schedule that showed it.
//
//go:norace
func All() Option { return func(c *config) { c.all = true } }

// Timeout sets the transition timeout (default DefaultTimeout): the longest
// a goroutine may run between two sthread calls. A goroutine that takes
// longer (it spins without Yield, or blocks in something sthread does not
// control) is reported as a transition timeout. It cannot be stopped: it
// keeps running in the background, and its next sthread call unwinds it.
// d <= 0 keeps the default.
//
//go:norace
func Timeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// Schedule makes Check run the given schedule (as printed in a report,
// "1;1;2", or "Path = 1;1;2") once instead of searching, like setting
// ReplayEnv. After the schedule the execution goes on with the default
// policy (the running goroutine keeps going, else the lowest id).
//
//go:norace
func Schedule(s string) Option {
	return func(c *config) { c.schedule, c.hasSchedule = s, true }
}

// MaxExecutions stops the search after n executions (0, the default: no
// limit).
//
//go:norace
func MaxExecutions(n int64) Option { return func(c *config) { c.maxExecutions = max(n, 0) } }

// Strategy makes Check and Explore search with st instead of the
// exhaustive depth-first search: search.NewRandom, search.NewPCT or
// search.NewPreemptionBounding, for functions with too many schedules to
// explore them all. Sampling strategies never run out: bound them with
// MaxExecutions or Budget. A strategy value serves one search at a time.
func Strategy(st search.Strategy) Option { return func(c *config) { c.strategy = st } }

// Budget bounds the wall time of Check and Explore (0, the default: no
// limit): the search gets four fifths of it, the minimisation of the bugs
// found what is left (all of it with NoMinimise). A search stopped by its
// budget is not an error: Check passes if it found no bug, and Explore's
// Result is not Complete.
func Budget(d time.Duration) Option { return func(c *config) { c.budget = max(d, 0) } }

// NoMinimise reports each bug with the schedule the search found, instead
// of shrinking it first to the shortest schedule of the bug, with the
// fewest preemptions (stdbg find's --no-minimise).
func NoMinimise() Option { return func(c *config) { c.noMinimise = true } }

// NoReduction makes the search run every schedule (stdbg find's
// --reduction none). By default it runs one schedule per class of
// schedules that differ only in the order of independent operations
// (dynamic partial-order reduction), which finds the same bugs in far
// fewer executions.
func NoReduction() Option { return func(c *config) { c.noReduction = true } }

// search returns the search strategy the options select: the one given
// with Strategy, else DPOR, or the plain depth-first search with
// NoReduction or a stateful search (a visited set or a state graph needs
// every schedule: DPOR's reduction is not sound with them).
func (c *config) search() search.Strategy {
	switch {
	case c.strategy != nil:
		return c.strategy
	case c.noReduction || c.stateful():
		return search.NewDFS()
	}
	return search.NewDPOR()
}

// reduction names the reduction the options select, as stdbg find does.
func (c *config) reduction() string {
	if c.strategy != nil || c.noReduction || c.stateful() {
		return "none"
	}
	return "dpor"
}

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
	if searching() {
		// Started by stdbg find to search in process.
		os.Exit(serveSearchOrDie(f, cfg))
	}
	if remote() {
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
	if replayCorpus(t, dir, f, cfg) {
		return
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
	rep, rr, err := describe(f, cfg, s, logs)
	if err != nil {
		return nil, err
	}
	if rr.Outcome != nil && rr.Outcome.Kind == search.Diverged {
		return nil, fmt.Errorf("the schedule does not fit: %s", rr.Outcome.Message)
	}
	out := &replayed{rep: rep}
	if o := rr.Outcome; o != nil && o.Kind.IsBug() {
		out.bug = &Bug{Kind: o.Kind, Message: rep.Message, Where: o.Where, Schedule: rr.Executed.String(), Report: rep}
	}
	return out, nil
}

// describe runs schedule s on f once with full stacks and builds its
// report. checkMu must be held.
//
//go:norace
func describe(f func(), cfg *config, s schedule.Schedule, logs bool) (*report.Report, *search.ReplayResult, error) {
	r := newRunner(f, cfg, reportDepth)
	r.replay = logs
	// A user stopped in a debugger is not a transition that runs for
	// ever.
	r.noWatch = logs && traced()
	r.start()
	defer r.stop()
	chk := checker.New(r, checker.Options{FastExit: true, Locate: locate})
	e, err := chk.Begin()
	if err != nil {
		return nil, nil, fmt.Errorf("starting %s: %w", funcName(f), err)
	}
	ex := r.begun
	defer e.Close()
	var run search.Execution = e
	var dbg *debugExec
	if logs {
		dbg = newDebugExec(e, ex, s)
		run = dbg
	}
	rr, err := search.Replay(run, s, cfg.maxDepth)
	if err != nil {
		return nil, nil, fmt.Errorf("running %s: %w", funcName(f), err)
	}
	if dbg != nil {
		outcome := ""
		if o := rr.Outcome; o != nil && o.Kind.IsBug() {
			outcome = o.Kind.String() + ": " + o.Message
		}
		dbg.finish(outcome)
	}
	syms := newSymbols(r, ex, e.Trace(), e.BlockedThreads())
	rep := report.Build(e, rr.Outcome, syms)
	if rr.Outcome != nil && rr.Outcome.Kind != search.Diverged && !rr.Executed.Equal(s) {
		rep.Executed = rr.Executed.String()
	}
	decorate(rep, ex, syms)
	if len(ex.stuck) > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("thread %d was running %s", ex.stuckTid, strings.Join(ex.stuck, ", called from ")))
	}
	return rep, rr, nil
}

// decorate adds to a report what is particular to Go: the function each
// goroutine runs, in front of each step and wait, and names instead of ids
// in the message.
//
//go:norace
func decorate(rep *report.Report, ex *execution, syms *goSymbols) {
	names := make(map[int]string)
	width := 0
	for _, th := range ex.threads {
		n := shortFunc(runtime.FuncForPC(th.fn))
		names[th.tid] = n
		width = max(width, len(n))
	}
	stepped := make(map[int]bool)
	for i := range rep.Steps {
		s := &rep.Steps[i]
		s.Call = fmt.Sprintf("%-*s  %s", width, names[s.Thread], s.Call)
		stepped[s.Thread] = true
	}
	for i := range rep.Waits {
		if w := &rep.Waits[i]; !stepped[w.Thread] {
			w.Text = fmt.Sprintf("(%s) %s", names[w.Thread], w.Text)
		}
	}
	rep.Message = syms.nameIDs(rep.Message)
}

// shortFunc is a function's name without its package path.
//
//go:norace
func shortFunc(fn *runtime.Func) string {
	if fn == nil {
		return "?"
	}
	return shortName(fn.Name())
}

// shortName drops the package path from a qualified Go name:
// "example.com/m/pkg.TestX.func1" is "TestX.func1".
//
//go:norace
func shortName(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.IndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// funcName names f for error messages.
//
//go:norace
func funcName(f func()) string {
	return shortFunc(runtime.FuncForPC(funcPC(f)))
}

// locate is the checker's Locator: "file.go:12".
//
//go:norace
func locate(pc uint64) string {
	fr := userFrame(uintptr(pc))
	if fr.File == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", filepath.Base(fr.File), fr.Line)
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
