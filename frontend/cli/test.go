package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stdbg/stdbg/engine/corpus"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/frontend/gotest"
	"github.com/stdbg/stdbg/frontend/session"
)

// testFlags are go test's flags that stdbg test takes.
type testFlags struct {
	run, skip, tags string
	junit, sarif    string
	short, verbose  bool
	parallel, count int
	timeout         time.Duration
}

// tester is stdbg test: go test's flags, and each test of the packages
// searched as find searches a program.
type tester struct {
	*app
	tf testFlags
}

func (c *tester) command() *cobra.Command {
	tf := &c.tf
	cmd := &cobra.Command{
		Use:   "test [packages] [flags]",
		Short: "explore the schedules of every test of Go packages, as go test runs them",
		Long: fmt.Sprintf(`Run every test of the packages named, as go test does, with the schedules of
each explored: go test's package patterns (./..., directories, import paths;
none: the package in the current directory) and its flags -run, -skip, -tags,
-short, -v, -json, -p, -timeout and -count, with one dash or two, plus the
search settings of stdbg find (--budget for each test, --strategy, the bounds,
--races, ...). Each test's search stops after --budget (default %s, so
that a suite ends on its own as go test's -timeout makes it; --budget 0: no
limit), and the summary says the budget.

Each package's test binary is instrumented and built once; each of its tests
(TestXxx; TestMain is honoured) is explored on its own, inside the test's
process. A bug is reported with its schedule, saved in the test's corpus
(testdata/stdbg/TestName in its package) and replayed by the command shown. A
test whose search found nothing is then run once as go test runs it, within
what its search left of the budget (at least %s): a test that skips itself
is SKIP, one that fails or hangs outside the schedules explored is FAIL.

Each test gets a line: ok (the search covered everything), BUG, incomplete
(the budget or a bound stopped the search, or the budget cut the run as go
test runs it: what it covered is said),
unjudged (cannot judge: code stdbg does not control decides, as said), SKIP
or FAIL; each package a line as go test writes it; then a summary. With -json,
the event stream of go test -json instead (for gotestsum, go-junit-report,
CI annotations). A test whose inputs did not change since a complete search
found nothing is not explored again ("(cached)"); -count=1 explores it again.
--junit and --sarif write the whole run for CI; --shard I/N runs part I of N
of the tests, for N CI jobs.
The cache is kept under the user's cache directory (STDBG_TEST_CACHE to put
it elsewhere). See docs/go-test.md.

Exit status: 0 no bug, 1 a bug was found or a test or package failed, 2 bad
usage.`, defaultTestBudget, gotest.NativeFloor),
		Example: `  stdbg test ./...
  stdbg test -run 'TestTransfer' -v ./bank
  stdbg test --budget 10s -json ./... > events.json
  stdbg test -count=1 -tags integration ./store/...`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.test(args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&tf.run, "run", "", "run only the tests matching this regular expression (go test -run)")
	f.StringVar(&tf.skip, "skip", "", "leave out the tests matching this regular expression (go test -skip)")
	f.StringVar(&tf.tags, "tags", "", "build tags, comma-separated (go test -tags)")
	f.BoolVar(&tf.short, "short", false, "tell the tests to run in short mode (go test -short)")
	f.BoolVarP(&tf.verbose, "verbose", "v", false, "show every test's output and the statistics of its search (go test -v)")
	f.IntVarP(&tf.parallel, "parallel-packages", "p", 0, "packages built and explored at once (go test -p; 0: one per CPU)")
	f.IntVar(&tf.count, "count", 0, "explore each test n times, ignoring the cache (go test -count; 1 is the way to skip the cache)")
	f.StringVar(&tf.junit, "junit", "", "also write the whole run as JUnit XML to this file: a test suite per package, a BUG or FAIL as a failure, an ERROR or a package that did not build as an error")
	f.StringVar(&tf.sarif, "sarif", "", "also write the bugs of the whole run as a SARIF 2.1.0 log to this file (tests that failed otherwise and packages that did not build as notifications)")
	f.DurationVar(&tf.timeout, "timeout", 10*time.Minute, "longest a test may run once as go test runs it; a test that hangs is ended with its goroutines' stacks (go test -timeout)")
	addSettings(cmd, searchSettings...)
	addSettings(cmd, "shard")
	// What the shared settings mean here: the shard setting, over the
	// tests rather than inside a search.
	f.Lookup("shard").Usage = "run only part I of N of the tests (I/N, 0 <= I < N): the tests of all the packages are dealt to the N parts in turn, so that N CI jobs share a suite; join their corpora with stdbg corpus merge"
	f.Lookup("budget").Usage = fmt.Sprintf("stop each test's search after this much wall time, e.g. 30s or 10m (default %s; 0: no limit), counted from when the search begins; it bounds every phase, a step still running at its end included (cut there): the search (four fifths of it when bugs are minimised), the minimisation of the bugs found (up to nine tenths), the replays that confirm and explain a bug (one it cuts leaves the bug reported and saved as found, without stacks), and the run as go test runs it, which gets what the search left of it, at least %s (cut there: incomplete; -timeout bounds it too)", defaultTestBudget, gotest.NativeFloor)
	f.Lookup("json").Usage = "write go test -json's event stream (test2json's TestEvent objects) instead of text"
	f.Lookup("corpus").Usage = "directory where the bugs are saved, under <import path>/<TestName> (default: testdata/stdbg/<TestName> in each test's package)"
	return cmd
}

// test explores the tests of the packages args names, and prints and
// writes the results.
func (c *tester) test(args []string) error {
	a, tf := c.app, c.tf
	if tf.count < 0 {
		return usageErr("-count must be 0 or more, not %d", tf.count)
	}
	if tf.timeout <= 0 {
		return usageErr("-timeout must be a positive duration such as 10m, not %s", tf.timeout)
	}
	for _, o := range []struct{ flag, path string }{{"junit", tf.junit}, {"sarif", tf.sarif}} {
		if err := checkOutput(o.flag, o.path); err != nil {
			return err
		}
	}
	// --shard divides the suite's tests: each test's search is whole,
	// whatever its strategy.
	shard, shards, err := parseShard(a.s.Shard)
	if err != nil {
		return err
	}
	p, err := a.plan(false, false)
	if err != nil {
		return err
	}
	p.Budget = a.testBudget()
	for _, n := range p.notes {
		fmt.Fprintf(a.stderr, "stdbg: %s\n", n)
	}
	stopper := newStopper()
	defer stopper.stop()
	cfg := gotest.Config{
		Patterns: args, Tags: tf.tags, Run: tf.run, Skip: tf.skip, Short: tf.short, Timeout: tf.timeout, Count: tf.count, Budget: p.Budget,
		Verbose: tf.verbose, JSON: a.s.JSON, Parallel: tf.parallel, Race: a.s.Races, Shard: shard, Shards: shards,
		RandSeed: a.s.RandSeed, MaxStall: new(a.s.maxStall()),
		Options:  a.sessionOptions(session.Options{FastExit: true, KeepThreads: true}),
		Search:   c.search(p),
		CacheKey: c.cacheKey(),
		Stdout:   a.stdout,
	}
	if tf.count == 0 {
		cfg.Cache = testCacheDir()
	}
	sum, err := gotest.Run(stopper.ctx, cfg)
	if err != nil {
		return usageErr("%v", err)
	}
	if tf.junit != "" {
		if err := writeTestJUnit(tf.junit, sum); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	}
	if tf.sarif != "" {
		var reports []*report.Report
		var problems []string
		for _, r := range sum.Results {
			reports = append(reports, r.Bugs...)
			if r.Status == "FAIL" || r.Status == "ERROR" {
				problems = append(problems, fmt.Sprintf("%s %s: %s", r.Package, r.Test, r.Detail))
			}
		}
		for _, b := range sum.Broken {
			problems = append(problems, b.Package+": did not build")
		}
		if err := writeSARIF(tf.sarif, reports, problems); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	}
	switch {
	case sum.Failing():
		return bugFound
	case stopper.ctx.Err() != nil:
		return &exitError{code: stopper.exitCode()}
	}
	return nil
}

// search is the search of one test, as find's: the plan (a strategy of
// its own), the corpus of the test (testdata/stdbg/TestName in its package,
// or under --corpus), the reports; what find says on stderr becomes the
// test's notes.
func (c *tester) search(p *plan) func(ctx context.Context, s *session.Session, tt *gotest.Test) (*gotest.Searched, error) {
	a := c.app
	return func(ctx context.Context, s *session.Session, tt *gotest.Test) (*gotest.Searched, error) {
		pt := *p
		var err error
		if pt.Strategy, err = pt.Search.New(); err != nil {
			return nil, err
		}
		f := &finder{a: a, t: tt.Target, s: s, p: &pt, maxDepth: a.maxDepth(tt.Target),
			corpusDir: filepath.Join(tt.Target.Source, corpus.Root, tt.Name)}
		if dir := a.s.Corpus; dir != "" {
			f.corpusDir = filepath.Join(dir, filepath.FromSlash(tt.Package), tt.Name)
		}
		fd := f.sessionFind()
		fd.Hooks.OnBug = nil
		fd.Reported = tt.Found // each bug told under its test before it is minimised
		if !a.explicit("jobs") {
			fd.Plan.Jobs = tt.Jobs
		}
		var notes []string
		fd.Hooks.Note = func(msg string) { notes = append(notes, msg) }
		fd.Warn = fd.Hooks.Note
		found, err := s.Find(ctx, fd)
		if found == nil {
			return nil, err
		}
		out := f.result(found)
		for _, n := range out.NotModelled {
			notes = append(notes, "not modelled: "+strings.TrimPrefix(n, "not instrumented: "))
		}
		if out.DepthLimited && len(out.Loops) > 0 {
			notes = append(notes, fmt.Sprintf("executions were cut at %d transitions; the first was looping: %s (a loop that comes back "+
				"to a state ends with --visited, one that ends later needs a larger --max-depth)", out.MaxDepth, strings.Join(out.Loops, "; ")))
		}
		return &gotest.Searched{Bugs: out.Bugs, Complete: out.Complete && !out.Interrupted, Coverage: found.Coverage,
			Stats: report.FormatStats(out.Stats), Notes: append(notes, out.Notes...), Executions: out.Stats.Executions}, err
	}
}

// defaultTestBudget is the longest the search of one Go test runs when no
// budget is set (--budget, STDBG_BUDGET, stdbg.yaml), in stdbg test and in
// stdbg find --run, so that a whole suite ends on its own as go test's
// -timeout makes it, even when a test's schedules are too many to explore:
// long enough for the searches of the bundled examples and of the modules
// of benchmarks/modules to end or find their bugs (docs/go-test.md says
// how it was measured). A variable for the tests.
var defaultTestBudget = 60 * time.Second

// testBudget is the budget of the search of one Go test: the budget
// setting when it is set (0: no limit), else defaultTestBudget.
func (a *app) testBudget() time.Duration {
	if a.explicit("budget") {
		return a.s.Budget
	}
	return defaultTestBudget
}

// cacheKey holds what the results of stdbg test depend on besides the
// tests' inputs: stdbg's version and the settings of the search.
func (c *tester) cacheKey() string {
	a := c.app
	skip := map[string]bool{"json": true, "quiet": true, "corpus": true, "no-save": true, "jobs": true, "profile": true, "cycles": true,
		"shard": true} // --shard picks the tests, not how each is searched
	keys := knownKeys()
	sort.Strings(keys)
	parts := []string{"stdbg " + version, runtime.GOOS + "/" + runtime.GOARCH}
	for _, k := range keys {
		if !skip[k] {
			parts = append(parts, fmt.Sprintf("%s=%v", k, a.s.value(k)))
		}
	}
	return strings.Join(parts, "\x00")
}

// testCacheDir is the directory of stdbg test's cache: $STDBG_TEST_CACHE,
// or stdbg/test under the user's cache directory ("" when there is none:
// no cache).
func testCacheDir() string {
	if d := os.Getenv("STDBG_TEST_CACHE"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "stdbg", "test")
}
