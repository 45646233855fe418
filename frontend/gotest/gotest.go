// Package gotest runs the tests of Go packages under stdbg's scheduler as
// go test runs them: go test's package patterns (./..., directories,
// import paths), its -run, -skip, -tags, -short, -timeout and -count, its
// output (a line per test and per package, or with -json the event
// stream of go test -json) and its cache of results. It is the library
// of stdbg test.
//
// Each package's test binary is instrumented and built once (package
// session, with package goinstr), then each of its tests is explored on
// its own: a session of the binary running that test alone, searched by
// the front end's search (Config.Search, which holds the search's
// settings, its corpus and its reports). A test with no bug is then run
// once as go test runs it, to tell a test that skipped itself and one
// that fails outside the schedules explored (or hangs, ended by -timeout
// with its goroutines' stacks).
//
// Packages are built and explored several at once (Config.Parallel), and
// a package's tests several at once (Config.Searches); their output comes
// in the order the patterns and the test files list them.
package gotest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/frontend/session"
)

// Config says which tests to run and how.
type Config struct {
	// Patterns are go test's package patterns; none means ".".
	Patterns []string
	// Dir is the directory the patterns are relative to ("": the current
	// one).
	Dir string
	// Tags, Run, Skip, Short and Timeout are go test's -tags, -run,
	// -skip, -short and -timeout (0: 10 minutes, go test's default): the
	// build tags, the tests selected and those left out (a regular
	// expression per level of names), the short mode of the tests, and
	// the longest a test may run as go test runs it.
	Tags, Run, Skip string
	Short           bool
	Timeout         time.Duration
	// Budget is the budget of each test's search, said in the summary
	// (the search itself is Search's, which keeps it), and the bound of
	// the test's run as go test runs it after a search that found no bug:
	// what the search left of it, and at least NativeFloor (a run cut
	// there leaves the test incomplete); 0: no limit but Timeout.
	Budget time.Duration
	// Count is go test's -count: 0 lets a test whose inputs did not
	// change since a complete search found nothing give that result again
	// (cached); n >= 1 searches every test n times.
	Count int
	// Verbose (-v) shows every test's output and the statistics of its
	// search; JSON (-json) writes go test -json's event stream instead of
	// text.
	Verbose, JSON bool
	// Parallel is the number of packages built and explored at once (-p;
	// < 1: one per CPU, as go test's -p), so that a package is built
	// while another's tests are explored.
	Parallel int
	// Searches is the number of tests explored at once, whichever their
	// packages (< 1: as many as fill the CPUs, NumCPU / Test.Jobs, since a
	// Go test's search runs inside its test binary, each copy of it on a
	// CPU, while stdbg waits); the build of a package's test binary takes
	// the place of a search. Their results are written in order all the
	// same.
	Searches int
	// Race builds the instrumented tests with Go's race detector.
	Race bool
	// ProcessPerTest searches each test in a process of its own, where
	// by default the tests of a package whose searches find nothing are
	// searched in turn in shared processes of its test binary (each
	// test's verdict the same).
	ProcessPerTest bool
	// Shard and Shards select part Shard of Shards of the tests (0 <= Shard
	// < Shards; Shards < 2: all), so that Shards machines (CI jobs, the
	// pods of an indexed job) share a suite: the tests of all the packages,
	// in go list's order, are dealt to the shards in turn.
	Shard, Shards int
	// RandSeed is the seed of the tests' random numbers
	// (session.Target.SeedRand; 0: session.DefaultRandSeed).
	RandSeed int64
	// MaxStall is the stall bound of the tests' virtual time
	// (session.Target.SetMaxStall; nil: the default).
	MaxStall *time.Duration
	// Options start the processes of the tests.
	Options session.Options
	// Search explores a test in s, a session of its target: the search
	// with the front end's settings, its reports and corpus.
	Search func(ctx context.Context, s *session.Session, t *Test) (*Searched, error)
	// Cache is the directory of the results cache ("": none); CacheKey
	// holds what else the results depend on (stdbg's version, the search
	// settings).
	Cache, CacheKey string
	// Stdout receives the report.
	Stdout io.Writer
}

// Test is one test to explore.
type Test struct {
	// Package is the import path of its package, Dir its directory.
	Package, Dir string
	// Name is the test function's name.
	Name string
	// Target is its target: the package's test binary running the test
	// alone.
	Target *session.Target
	// Jobs is the number of copies of the program its search may use at
	// once (the CPUs left to it by the packages explored beside it).
	Jobs int
	// Found tells of a bug as soon as the search found, explained and
	// saved it, before its minimisation (hunt.Config.Reported): its line
	// is printed under the test at once (FoundLine).
	Found func(*hunt.Finding)
}

// Searched is what the search of a test found and covered.
type Searched struct {
	// Bugs are the reports of the bugs found (minimised, saved).
	Bugs []*report.Report
	// Complete reports a search that covered everything it had to (every
	// schedule, or every one of the bounds it was given).
	Complete bool
	// Coverage is what the search covered (session.Found's); Stats are
	// its statistics in a line; Notes, what it could not do.
	Coverage session.Coverage
	Stats    string
	Notes    []string
	// Executions is the number of executions explored.
	Executions int64
}

// Summary counts what a Run found.
type Summary struct {
	// Packages counts the packages reported (with --shard, those this
	// part reports); FailedPackages those that failed (a bug, a test that
	// fails, or a build that failed), BuildFailed those that did not
	// build.
	Packages, FailedPackages, BuildFailed int
	// Tests counts the tests run, by status (Unjudged: those stdbg
	// cannot judge, which fail nothing).
	Tests, OK, Bugs, Incomplete, Unjudged, Skipped, Failed, Errors, Cached int
	Elapsed                                                                time.Duration
	// Budget is Config.Budget: the longest search of a test (0: no
	// limit).
	Budget time.Duration
	// Results are the tests' results, package by package in the order of
	// the patterns; Broken the packages that did not build.
	Results []*TestResult
	Broken  []*Broken
}

// TestResult is what became of one test, for the reports that cover a
// whole run (JUnit, SARIF).
type TestResult struct {
	// Package is the import path of the test's package, Test its name.
	Package, Test string
	// Status is ok, BUG, incomplete, unjudged, SKIP, FAIL or ERROR
	// (docs/go-test.md).
	Status  string
	Elapsed time.Duration
	// Cached: the result of an earlier run with the same inputs.
	Cached bool
	// Detail is the rest of the test's status line; Output the lines
	// below it (a bug's report, a failure's output).
	Detail string
	Output []string
	// Bugs are the reports of a BUG.
	Bugs []*report.Report
}

// Failed reports whether the result fails its package: a bug, a test that
// fails or could not be searched.
func (r *TestResult) Failed() bool {
	return r.Status == statusBug || r.Status == statusFail || r.Status == statusError
}

// Broken is a package whose tests did not build: what the go command (or
// stdbg's instrumentation) said.
type Broken struct {
	Package string
	Output  []string
}

// Failing reports whether anything failed: a bug, a test that fails or
// could not be searched, a package that does not build.
func (s *Summary) Failing() bool {
	return s.Bugs+s.Failed+s.Errors+s.BuildFailed > 0
}

// UsageError is an error of what the user gave (a pattern that matches
// nothing, a bad -run): one line, exit status 2.
type UsageError = session.UsageError

// defaultTimeout is go test's -timeout by default.
const defaultTimeout = 10 * time.Minute

// Run runs the tests the configuration selects and writes their results.
// Its error is one that stopped everything (a bad pattern or flag:
// UsageError); what fails in one package or test is written with it, and
// the others go on.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	start := time.Now()
	if len(cfg.Patterns) == 0 {
		cfg.Patterns = []string{"."}
	}
	if cfg.Dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		cfg.Dir = wd
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTimeout
	}
	if cfg.Search == nil {
		return nil, errors.New("gotest: Config.Search is nil")
	}
	if cfg.Stdout == nil {
		cfg.Stdout = io.Discard
	}
	run, err := newSelector("run", cfg.Run)
	if err != nil {
		return nil, err
	}
	skip, err := newSelector("skip", cfg.Skip)
	if err != nil {
		return nil, err
	}
	pkgs, err := listPackages(ctx, cfg.Dir, cfg.Tags, cfg.Patterns)
	if err != nil {
		return nil, err
	}
	par := cfg.Parallel
	if par < 1 {
		par = runtime.NumCPU()
	}
	if cfg.Shards < 1 {
		cfg.Shard, cfg.Shards = 0, 1
	}
	if cfg.Shard < 0 || cfg.Shard >= cfg.Shards {
		return nil, &UsageError{Err: fmt.Errorf("shard %d of %d: want 0 <= I < N", cfg.Shard, cfg.Shards)}
	}
	r := &runner{cfg: &cfg, run: run, skip: skip, pr: newPrinter(cfg.Stdout, cfg.JSON, cfg.Verbose),
		jobs: max(1, session.JobsFor(0)/par), sum: &Summary{Budget: cfg.Budget}}
	searches := cfg.Searches
	if searches < 1 {
		searches = max(1, runtime.NumCPU()/r.jobs)
	}
	r.searching = make(chan struct{}, searches)
	r.selectTests(pkgs)
	r.results, r.broken = make([][]*TestResult, len(pkgs)), make([]*Broken, len(pkgs))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(par, len(pkgs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				r.pkg(ctx, i, pkgs[i])
			}
		}()
	}
	for i := range pkgs {
		work <- i
	}
	close(work)
	wg.Wait()
	r.sum.Elapsed = time.Since(start)
	for i := range pkgs {
		r.sum.Results = append(r.sum.Results, r.results[i]...)
		if r.broken[i] != nil {
			r.sum.Broken = append(r.sum.Broken, r.broken[i])
		}
	}
	if !cfg.JSON {
		fmt.Fprintln(cfg.Stdout, r.sum.String())
	}
	return r.sum, nil
}

// String is the summary's line.
func (s *Summary) String() string {
	parts := []string{fmt.Sprintf("%d ok", s.OK)}
	for _, c := range []struct {
		n    int
		what string
	}{{s.Bugs, "BUG"}, {s.Incomplete, "incomplete"}, {s.Unjudged, "cannot judge"}, {s.Skipped, "skipped"}, {s.Failed, "failed"}, {s.Errors, "errors"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	tail := ""
	if s.Cached > 0 {
		tail = fmt.Sprintf(" (%d cached)", s.Cached)
	}
	if s.BuildFailed > 0 {
		tail += fmt.Sprintf("; %d %s did not build", s.BuildFailed, plural(s.BuildFailed, "package"))
	}
	budget := "no budget per test"
	if s.Budget > 0 {
		budget = "budget " + s.Budget.String() + " per test"
	}
	return fmt.Sprintf("stdbg test: %d %s in %d %s: %s%s, %.1fs; %s", s.Tests, plural(s.Tests, "test"), s.Packages, plural(s.Packages, "package"),
		strings.Join(parts, ", "), tail, s.Elapsed.Seconds(), budget)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// runner is one Run under way.
type runner struct {
	cfg       *Config
	run, skip *selector
	pr        *printer
	jobs      int           // Test.Jobs
	searching chan struct{} // a token per search under way (Searches)
	selected  []selection   // by package

	// results and broken are the packages' results, by package.
	results [][]*TestResult
	broken  []*Broken

	mu  sync.Mutex
	sum *Summary
}

// count adds a test's result to the summary.
func (r *runner) count(res *result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sum
	s.Tests++
	if res.Cached {
		s.Cached++
	}
	switch res.Status {
	case statusOK:
		s.OK++
	case statusBug:
		s.Bugs++
	case statusIncomplete:
		s.Incomplete++
	case statusUnjudged:
		s.Unjudged++
	case statusSkip:
		s.Skipped++
	case statusFail:
		s.Failed++
	default:
		s.Errors++
	}
}

// pkg runs the selected tests of package i.
func (r *runner) pkg(ctx context.Context, i int, p *pkg) {
	if !r.selected[i].here {
		r.pr.finish(i) // another shard's
		return
	}
	r.mu.Lock()
	r.sum.Packages++
	r.mu.Unlock()
	start := time.Now()
	out := &pkgOut{p: r.pr, index: i, path: p.ImportPath}
	out.start()
	failPkg := func(lines []string, build bool) {
		r.mu.Lock()
		r.sum.FailedPackages++
		if build {
			r.sum.BuildFailed++
		}
		if build {
			r.broken[i] = &Broken{Package: p.ImportPath, Output: lines}
		}
		r.mu.Unlock()
		for _, l := range lines {
			out.line("", l, false)
		}
		if build {
			out.end("fail", fmt.Sprintf("FAIL\t%s [build failed]", p.ImportPath), time.Since(start), true)
			return
		}
		out.end("fail", fmt.Sprintf("FAIL\t%s\t%.3fs", p.ImportPath, time.Since(start).Seconds()), time.Since(start), false)
	}
	if !p.hasTests() {
		out.end("skip", fmt.Sprintf("?   \t%s\t[no test files]", p.ImportPath), 0, false)
		return
	}
	sel := r.selected[i]
	if sel.err != nil {
		failPkg([]string{"# " + p.ImportPath, sel.err.Error()}, true)
		return
	}
	if msg := p.buildError(); msg != "" {
		failPkg(append([]string{"# " + p.ImportPath}, strings.Split(msg, "\n")...), true)
		return
	}
	selected := sel.names
	if len(selected) == 0 {
		out.end("pass", fmt.Sprintf("ok  \t%s\t%.3fs [no tests to run]", p.ImportPath, time.Since(start).Seconds()), time.Since(start), false)
		return
	}
	pk := &pkgRun{r: r, p: p, out: out, names: selected}
	results, lines, build := pk.tests(ctx)
	for _, res := range results {
		r.results[i] = append(r.results[i], &TestResult{Package: p.ImportPath, Test: res.Name, Status: res.Status, Elapsed: res.Elapsed,
			Cached: res.Cached, Detail: res.Detail, Output: res.Lines, Bugs: res.bugs})
	}
	failed := false
	cached := len(results) > 0
	for _, res := range results {
		failed = failed || res.failed()
		cached = cached && res.Cached
	}
	switch {
	case build:
		failPkg(lines, true)
	case failed || len(lines) > 0 && len(results) == 0:
		failPkg(lines, false)
	case cached:
		out.end("pass", fmt.Sprintf("ok  \t%s\t(cached)", p.ImportPath), time.Since(start), false)
	default:
		out.end("pass", fmt.Sprintf("ok  \t%s\t%.3fs", p.ImportPath, time.Since(start).Seconds()), time.Since(start), false)
	}
}

// selection is the tests of a package that a run runs.
type selection struct {
	names []string // the tests selected, of this shard
	err   error    // the test files could not be read
	here  bool     // the package is this shard's to report
}

// selectTests finds the tests of every package that -run, -skip and the
// shard select. The tests of all the packages, in order, are dealt to the
// shards in turn, so that every shard gets as many; a package is reported
// by the shards that run some of its tests, or when it has none to run by
// shard 0.
func (r *runner) selectTests(pkgs []*pkg) {
	cfg := r.cfg
	r.selected = make([]selection, len(pkgs))
	n := 0
	for i, p := range pkgs {
		sel := &r.selected[i]
		if !p.hasTests() {
			sel.here = cfg.Shard == 0
			continue
		}
		names, err := testNames(p)
		if err != nil {
			sel.err, sel.here = err, cfg.Shard == 0
			continue
		}
		matched := false
		for _, name := range names {
			if !r.run.matches(name) || r.skip.top != nil && r.skip.rest == "" && r.skip.matches(name) {
				continue
			}
			matched = true
			if n%cfg.Shards == cfg.Shard {
				sel.names = append(sel.names, name)
			}
			n++
		}
		sel.here = len(sel.names) > 0 || !matched && cfg.Shard == 0
	}
}

// pkgRun is the run of one package's tests.
type pkgRun struct {
	r     *runner
	p     *pkg
	out   *pkgOut
	names []string
	// arg names the package for stdbg's commands (replay): its directory,
	// relative to the current one when inside it.
	arg string
	// batch searches the tests in shared processes (nil: a process per
	// test).
	batch *batches
}

// tests runs the package's selected tests, each from the cache or
// explored in the package's instrumented test binary, built before the
// first that is not cached; up to Config.Searches searches, of all the
// packages, run at once. The tests whose searches found no bug then run
// as go test runs them, together (runPending): when the first of them has
// waited batchWait, and at the end. Results are written in order as they
// are complete. lines are the package's own output (a build that failed:
// build set).
func (pk *pkgRun) tests(ctx context.Context) (results []*result, lines []string, build bool) {
	r, cfg := pk.r, pk.r.cfg
	pk.arg = relArg(pk.p.Dir)
	var keys map[string]string
	if cfg.Count == 0 && cfg.Cache != "" {
		keys = pk.cacheKeys(ctx)
	}
	written := 0 // results[:written] are written
	var waiting time.Time
	write := func(all bool) {
		if all {
			pk.runPending(ctx, results[written:])
			waiting = time.Time{}
		}
		for ; written < len(results) && results[written].pending == nil; written++ {
			res := results[written]
			pk.store(keys, res)
			pk.out.result(res)
			r.count(res)
		}
	}
	// The tests' results, in order, as each is complete (done closed).
	type slot struct {
		res  *result
		done chan struct{}
	}
	var slots []*slot
	// collect takes the results that are complete, in order (all of them
	// when wait is set, waiting for the searches under way), and writes
	// those that are final.
	collect := func(wait bool) {
		for len(results) < len(slots) {
			s := slots[len(results)]
			if wait {
				<-s.done
			} else {
				select {
				case <-s.done:
				default:
					return
				}
			}
			if s.res.pending != nil && waiting.IsZero() {
				waiting = time.Now()
			}
			results = append(results, s.res)
			write(!waiting.IsZero() && time.Since(waiting) >= batchWait)
		}
	}
	defer func() {
		collect(true)
		if pk.batch != nil {
			pk.batch.close()
		}
		write(true)
	}()
	cachedRes := map[string]*result{}
	var searched []string // the tests to search, in order
	for _, n := range pk.names {
		if res := lookup(cfg.Cache, keys[n]); res != nil {
			cachedRes[n] = res
		} else {
			searched = append(searched, n)
		}
	}
	var t *session.Target
	for _, n := range pk.names {
		if ctx.Err() != nil {
			break
		}
		collect(false)
		s := &slot{done: make(chan struct{})}
		if res := cachedRes[n]; res != nil {
			res.Name, res.Cached = n, true
			pk.out.run(n, true)
			s.res = res
			close(s.done)
			slots = append(slots, s)
			continue
		}
		if t == nil {
			// A build takes a search's place: the searches' budgets are
			// of wall time, and a build beside them all would shrink
			// their share of the CPUs.
			r.searching <- struct{}{}
			var err error
			t, err = session.Resolve([]string{pk.arg}, session.Build{Run: ".", Race: cfg.Race, Tags: cfg.Tags})
			<-r.searching
			if err != nil {
				return results, pk.buildFailure(ctx, err), true
			}
			seed := cfg.RandSeed
			if seed == 0 {
				seed = session.DefaultRandSeed
			}
			t.SeedRand(seed)
			if cfg.MaxStall != nil {
				t.SetMaxStall(*cfg.MaxStall)
			}
			if !cfg.ProcessPerTest && cfg.Count <= 1 && r.run.rest == "" && len(searched) > 1 {
				pk.batch = newBatches(searched)
			}
		}
		// Wait for a search to end (its result then complete) before
		// starting another beyond Config.Searches.
		r.searching <- struct{}{}
		slots = append(slots, s)
		go func() {
			s.res = pk.test(ctx, t, n)
			close(s.done)
			<-r.searching
		}()
	}
	return results, nil, false
}

// batchWait is how long a test whose search found no bug waits, at most,
// for its run as go test runs it, while later tests are searched: a
// package's tests run together, in one process, within that time (a
// variable for the tests).
var batchWait = 5 * time.Second

// buildFailure says why the package's instrumented test binary did not
// build: as go test says it when the package does not build as it is, else
// (stdbg could not instrument it) with stdbg's error.
func (pk *pkgRun) buildFailure(ctx context.Context, err error) []string {
	args := []string{"test", "-c", "-o", os.DevNull}
	if pk.r.cfg.Tags != "" {
		args = append(args, "-tags="+pk.r.cfg.Tags)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, pk.p.ImportPath)...)
	cmd.Dir = pk.r.cfg.Dir
	if out, goErr := cmd.CombinedOutput(); goErr != nil && len(bytes.TrimSpace(out)) > 0 {
		return strings.Split(strings.TrimSpace(string(out)), "\n")
	}
	lines := []string{"# " + pk.p.ImportPath + " (builds with go test, but stdbg could not instrument or build it)"}
	return append(lines, strings.Split(strings.TrimSpace(err.Error()), "\n")...)
}

// relArg names dir for a command line: relative to the current directory
// ("./pkg", ".") when inside it, else absolute.
func relArg(dir string) string {
	wd, err := os.Getwd()
	if err != nil {
		return dir
	}
	rel, err := filepath.Rel(wd, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return dir
	}
	if rel == "." {
		return "."
	}
	return "./" + rel
}
