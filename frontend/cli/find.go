package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stdbg/stdbg/engine/corpus"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/frontend/gotest"
	"github.com/stdbg/stdbg/frontend/session"
)

// findCmd is stdbg find: its own flags, the search of a target (finder)
// and what it prints and writes.
type findCmd struct {
	*app
	run      string // --run: the Go tests to check
	estimate bool   // --estimate: probes only
	outs     findOutputs
}

func (c *findCmd) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "find [flags] PROGRAM [-- ARGS...]",
		Short: "explore the schedules of a program and report the bugs found",
		Long: fmt.Sprintf(`Explore the thread schedules of PROGRAM and report the bugs found. Stop at
the first bug (or, with --all, report each distinct bug once).

By default (--strategy portfolio) four searches share the time: the
exhaustive depth-first search with DPOR (--reduction dpor: schedules that
differ only in the order of independent operations are explored once; it
finds the same bugs as --reduction none, which runs every schedule, in far
fewer executions) runs alone for its first %s, then takes %s
of the time, and PCT, delay bounding (up to %d delays) and a random walk
the rest. The first bug from any ends the search, and the report says which
found it; the search is exhaustive only when DPOR finished. --seed repeats
the sampling searches' choices. --strategy dfs runs DPOR alone (as does
naming --reduction). The progress line estimates how much of DPOR's tree is
explored and the time left; --estimate runs only random probes and prints
the expected executions and time of an exhaustive search (Knuth's
estimator; docs/estimate.md).

With -j N the search is divided among N copies of the program (default: one
per two CPUs): the portfolio's DPOR among N-1, the others on the last;
--shard I/N runs part I of N of DPOR's search, so that N machines share one
search (see docs/parallel.md). Bounded and sampled searches run in one copy
of the program.

For programs too big to explore exhaustively: --preemptions K explores the
schedules with no preemption (a switch away from a thread that could go on),
then those with one, ... up to K, and says which bounds were finished;
--delays K does the same with deviations from a round-robin scheduler, which
also counts switching to another thread than the next when one blocks: with
many threads, where even 0 preemptions means every order of the threads,
--delays 0 is one execution and --delays 1 one per step of it;
--strategy random samples random schedules and --strategy pct samples with
PCT's priorities (--pct-depth d: bugs that need d ordering constraints),
both reproducible with the --seed they print; --budget 30s and
--executions N stop any search. The search of Go tests (--run) stops after
%s unless --budget says otherwise (--budget 0: no limit), as under
stdbg test. The result says whether the search was
exhaustive, bounded or sampled. Ctrl-C stops the search, prints the
statistics and saves the bugs found so far. --profile FILE writes a pprof
profile of the exploration: the program's source stacks at the scheduling
points, with the executions through each, the transitions, the new states
of the search tree and the time (go tool pprof -top FILE).

PROGRAM is a C or C++ source file (.c, .cc, .cpp, .cxx), compiled with
-g -O0 -pthread and stdbg.h on the include path, an existing dynamically
linked executable, run unmodified, or a Go package using package sthread
(a program whose main is wrapped in sthread.Run, or with --run the tests
calling sthread.Check), built with go build or go test -c and run once per
execution. Arguments after -- go to the program.
The program's own output is discarded during the search; replay shows it.

For each bug stdbg prints the kind, the schedule (Path = 1;1;2), every step
with its thread, call, source location and line, who waits for what or the
failing thread's stack, statistics, and the command that replays it.

Stateful search and liveness (docs/liveness.md): --visited identifies each
program state (C: the program's memory, its threads' positions and the
synchronization objects; Go: goroutine positions, objects and the state
declared with sthread.State) and cuts executions at states already explored,
so busy-wait loops end ("Visited states" in the statistics). --livelock
reports a weakly fair cycle of states without progress (stdbg_progress,
sthread.Progress) as a lasso: Path = STEM (CYCLE)*. --ltl FORMULA checks a
formula over the propositions (stdbg_prop, sthread.Prop) under weak fairness:
atoms, ! && || -> and the operators X F G U R. These need --reduction none.`,
			search.PortfolioLeadTime, portfolioShare(), search.PortfolioDelays, defaultTestBudget),
		Example: `  stdbg find examples/c/deadly-embrace.c
  stdbg find --max-depth 10 ./myprog -- input.txt
  stdbg find --cfg=model-check/max-depth:10 ./myprog
  stdbg find --all --json examples/c/dining-philosophers.c
  stdbg find --run TestTransfer ./bank
  stdbg find --strategy pct --pct-depth 2 --budget 30s ./myprog
  stdbg find --strategy dfs --reduction dpor ./myprog
  stdbg find --estimate examples/c/bench/prodcons.c -- 2 2
  stdbg find --preemptions 2 --profile explore.pprof ./myprog
  stdbg find --delays 2 ./many-threads
  stdbg find --all --sarif stdbg.sarif examples/c/dining-philosophers.c
  stdbg find --html embrace.html examples/c/deadly-embrace.c
  stdbg find --all --visited --graph embrace.dot examples/c/deadly-embrace.c`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if c.estimate {
				return c.runEstimate(args)
			}
			return c.find(args)
		},
	}
	cmd.Flags().StringVar(&c.run, "run", "", "Go packages: check the tests matching this pattern (as go test -run)")
	cmd.Flags().BoolVar(&c.estimate, "estimate", false, fmt.Sprintf("search nothing: estimate the executions and the time of an exhaustive search (DPOR, or --reduction none's) from random probes (Knuth's estimator; %d probes or %s unless --executions or --budget say otherwise)", estimateProbes, estimateBudget))
	cmd.Flags().StringVar(&c.outs.html, "html", "", "also write the bugs found as one self-contained HTML page to this file: threads as lanes, source on hover, who waits for whom")
	cmd.Flags().StringVar(&c.outs.graph, "graph", "", fmt.Sprintf("also write the explored state space as a Graphviz DOT graph to this file (at most %d states; --visited merges equal states, --all goes on past the first bug); the default search then runs its exhaustive member alone, so that the drawing does not depend on the machine's speed", graphLimit))
	cmd.Flags().StringVar(&c.outs.sarif, "sarif", "", "also write the bugs found as a SARIF 2.1.0 log to this file (paths relative to the current directory), for code scanning")
	addSettings(cmd, searchSettings...)
	addSettings(cmd, "shard", "profile", "visited", "livelock", "ltl", "memory", "spurious-wakeups", "quiet")
	return cmd
}

// portfolioShare says in words the share of the time the portfolio's
// exhaustive member takes once its lead is over ("half").
func portfolioShare() string {
	decides, total := 0, 0
	for _, m := range (search.Spec{}).Members() {
		total += m.Share
		if m.Decides {
			decides = m.Share
		}
	}
	switch {
	case 2*decides == total:
		return "half"
	case 4*decides == total:
		return "a quarter"
	case 4*decides == 3*total:
		return "three quarters"
	}
	return fmt.Sprintf("%d/%d", decides, total)
}

// findOutputs are the files find writes besides its report.
type findOutputs struct {
	sarif, html, graph string
}

// graphLimit is the most states find --graph draws.
var graphLimit = 2000

// check refuses output files that cannot be written, before any search.
func (o findOutputs) check() error {
	for _, f := range []struct{ flag, path string }{{"sarif", o.sarif}, {"html", o.html}, {"graph", o.graph}} {
		if err := checkOutput(f.flag, f.path); err != nil {
			return err
		}
	}
	return nil
}

// find searches the target of args and prints what it found.
func (c *findCmd) find(args []string) error {
	// A recorder that sees every execution (a profile, a drawing): the
	// search runs in one copy.
	p, err := c.plan(true, c.outs.graph != "" || c.s.Profile != "")
	if err != nil {
		return err
	}
	if err := c.outs.check(); err != nil {
		return err
	}
	if c.outs.graph != "" && p.Shards > 1 {
		return usageErr("--graph draws a whole search: it cannot be combined with --shard")
	}
	if c.outs.graph != "" && p.Search.Portfolio() {
		// A drawing is of the exhaustive search alone: the portfolio's
		// other members join it once its lead is over, which a slow
		// machine reaches and a fast one does not, and the drawing (and
		// its count of states) would depend on the machine's speed.
		p.Search = p.Search.Exhaustive()
		if p.Strategy, err = p.Search.New(); err != nil {
			return err
		}
	}
	for _, n := range p.notes {
		fmt.Fprintf(c.stderr, "stdbg: %s\n", n)
	}
	// ^C, SIGTERM or SIGHUP stops the search: the bugs found so far are
	// printed and saved, without minimising them. Watched from here on: a
	// signal while the target is built or started (seconds for a Go
	// package) ends stdbg cleanly once the target is up, never by the
	// signal's default action, which would leave its processes behind.
	stopper := newStopper()
	defer stopper.stop()
	ctx := stopper.ctx
	var tests []string // the Go tests that --run selects
	if c.run != "" {
		// (A package that go list cannot read is left to the build,
		// which says why.)
		var all []string
		var err error
		dir, pattern := "", args[0]
		if st, serr := os.Stat(args[0]); serr == nil && st.IsDir() {
			dir, pattern = args[0], "." // (in its own module, if another)
		}
		if tests, all, err = gotest.Matching(ctx, dir, pattern, "", c.run); err == nil && len(tests) == 0 {
			return c.noTests(args[0], all)
		}
	}
	t, err := c.resolve(args, c.run)
	if err != nil {
		return err
	}
	f := &finder{a: c.app, t: t, s: nil, p: p, outs: c.outs, maxDepth: c.maxDepth(t)}
	if t.Go && t.Run != "" {
		// Go tests: bounded by default, and saved where stdbg test and
		// sthread.Check save the bugs of the test.
		p.Budget = c.testBudget()
		if c.s.Corpus == "" {
			f.corpusDir = testCorpus(t.Source, tests)
		}
	}
	// What the search does not model is said with its verdict.
	for _, w := range t.Notices() {
		fmt.Fprintln(c.stderr, "stdbg: warning:", w)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	s, err := c.startSession(t, session.Options{Stdout: io.Discard, Stderr: io.Discard, FastExit: true, KeepThreads: true,
		State: c.s.stateful()})
	if err != nil {
		return err
	}
	defer s.Close()

	if ctx.Err() != nil {
		return &exitError{code: stopper.exitCode(), err: fmt.Errorf("stopped by %v before the search began", stopper.signal())}
	}
	f.s = s
	f.prog = newProgress(c.stderr, c.s.Quiet)
	defer f.prog.stop()
	res, err := s.Find(ctx, f.sessionFind())
	f.prog.clear()
	if f.prof != nil {
		if err := f.prof.WriteFile(c.s.Profile); err != nil {
			// The bugs found matter more: report them all the same.
			fmt.Fprintf(c.stderr, "stdbg: %v\n", err)
		}
	}
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	out := f.result(res)
	if err := c.write(out, f); err != nil {
		return err
	}
	if len(out.Bugs) > 0 {
		return bugFound
	}
	if out.Interrupted {
		return &exitError{code: stopper.exitCode()}
	}
	return nil
}

// testCorpus is the corpus of the Go tests of the package dir that a
// find --run searches, where stdbg test and sthread.Check keep the bugs of
// a test: testdata/stdbg/TestName in the package when --run selects one
// test, else the package's testdata/stdbg.
func testCorpus(dir string, tests []string) string {
	if len(tests) == 1 {
		return filepath.Join(dir, corpus.Root, tests[0])
	}
	return filepath.Join(dir, corpus.Root)
}

// noTests says that --run selects no test of the package pkg, in go
// test's words ("no tests to run"), and which tests it has. As under go
// test, that is not an error (exit status 0): a pattern run over several
// packages passes those without such a test.
func (c *findCmd) noTests(pkg string, all []string) error {
	if c.s.JSON {
		b, _ := json.MarshalIndent(&findResult{Target: pkg, Bugs: []*report.Report{}, Coverage: "no tests to run"}, "", "  ")
		fmt.Fprintln(c.stdout, string(b))
		return nil
	}
	fmt.Fprintf(c.stdout, "no tests to run: --run %s matches no test of %s\n", session.ShellQuote(c.run), pkg)
	switch {
	case len(all) == 0:
		fmt.Fprintf(c.stderr, "stdbg: %s has no tests\n", pkg)
	case len(all) <= 10:
		fmt.Fprintf(c.stderr, "stdbg: its tests: %s\n", strings.Join(all, ", "))
	default:
		fmt.Fprintf(c.stderr, "stdbg: its tests: %s, ... (%d in all)\n", strings.Join(all[:10], ", "), len(all))
	}
	return nil
}
