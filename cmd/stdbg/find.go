package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/spf13/cobra"

	"github.com/stdbg/stdbg/corpus"
	"github.com/stdbg/stdbg/ctarget"
	"github.com/stdbg/stdbg/report"
	"github.com/stdbg/stdbg/schedprof"
	"github.com/stdbg/stdbg/search"
	"github.com/stdbg/stdbg/stategraph"
	"github.com/stdbg/stdbg/wire"
)

func (a *app) findCmd() *cobra.Command {
	var run string
	var outs findOutputs
	cmd := &cobra.Command{
		Use:   "find [flags] PROGRAM [-- ARGS...]",
		Short: "explore the schedules of a program and report the bugs found",
		Long: `Explore the thread schedules of PROGRAM, depth first, trying first to keep the
running thread going so that the first bug found needs few context switches.
Stop at the first bug (or, with --all, report each distinct bug once).

By default (--reduction dpor) schedules that differ only in the order of
independent operations (on different objects, or reads of the same memory)
are explored once: the search finds the same bugs as --reduction none,
which runs every schedule, in far fewer executions. With -j N the search is
divided among N copies of the program (default: one per two CPUs); --shard I/N
runs part I of N of it, so that N machines share one search (see
docs/parallel.md). DPOR and -j apply to the exhaustive search (--strategy dfs
without --preemptions, not stateful); other searches run every schedule they
choose, in one copy of the program.


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
--executions N stop any search. The result says whether the search was
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
		Example: `  stdbg find examples/c/deadly-embrace.c
  stdbg find --max-depth 10 ./myprog -- input.txt
  stdbg find --cfg=model-check/max-depth:10 ./myprog
  stdbg find --all --json examples/c/dining-philosophers.c
  stdbg find --run TestTransfer ./bank
  stdbg find --strategy pct --pct-depth 2 --budget 30s ./myprog
  stdbg find --preemptions 2 --profile explore.pprof ./myprog
  stdbg find --delays 2 ./many-threads
  stdbg find --all --sarif stdbg.sarif examples/c/dining-philosophers.c
  stdbg find --html embrace.html examples/c/deadly-embrace.c
  stdbg find --all --visited --graph embrace.dot examples/c/deadly-embrace.c`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.find(args, run, outs)
		},
	}
	cmd.Flags().StringVar(&run, "run", "", "Go packages: check the tests matching this pattern (as go test -run)")
	cmd.Flags().StringVar(&outs.html, "html", "", "also write the bugs found as one self-contained HTML page to this file: threads as lanes, source on hover, who waits for whom")
	cmd.Flags().StringVar(&outs.graph, "graph", "", fmt.Sprintf("also write the explored state space as a Graphviz DOT graph to this file (at most %d states; --visited merges equal states, --all goes on past the first bug)", graphLimit))
	cmd.Flags().StringVar(&outs.sarif, "sarif", "", "also write the bugs found as a SARIF 2.1.0 log to this file (paths relative to the current directory), for code scanning")
	addSettings(cmd, "max-depth", "all", "transition-timeout", "start-timeout", "reduction", "json", "corpus", "jobs", "shard", "no-save",
		"no-minimise", "minimise-executions", "strategy", "pct-depth", "seed", "preemptions", "delays", "executions", "budget", "profile",
		"visited", "livelock", "ltl", "in-target", "races", "memory", "spurious-wakeups", "rand-seed", "quiet")
	return cmd
}

// findResult is the JSON document of a find.
type findResult struct {
	Target       string           `json:"target"`
	Binary       string           `json:"binary"`
	MaxDepth     int              `json:"max_depth"`
	Bugs         []*report.Report `json:"bugs"`
	Stats        report.Stats     `json:"stats"`
	Complete     bool             `json:"complete"`
	DepthLimited bool             `json:"depth_limited"`
	Interrupted  bool             `json:"interrupted,omitempty"`
	// Strategy is dfs, random or pct; Seed is the seed of random and pct.
	Strategy string `json:"strategy"`
	Seed     uint64 `json:"seed,omitempty"`
	// Sampled reports a random or PCT search: never exhaustive.
	Sampled bool `json:"sampled"`
	// Bounds are the rounds of a preemption-bounded search.
	Bounds []search.Bound `json:"preemption_bounds,omitempty"`
	// Coverage says in words what the search covered.
	Coverage string `json:"coverage"`
	// MemoryPoints reports whether plain memory accesses were scheduling
	// points (those of global variables and the heap, in a C source built
	// with the memory instrumentation); Scope says what an exhaustive
	// search was exhaustive over.
	MemoryPoints bool   `json:"memory_scheduling_points"`
	Scope        string `json:"scope"` // thread operations (and memory), or goroutine operations
	// SearchedIn is where the search ran: "target" (inside the Go
	// program's process, package insearch) or "stdbg" (driving the
	// program transition by transition).
	SearchedIn string `json:"searched_in"`
	scopeNote  string
}

// scopeNote says, next to a complete search's verdict, what it was
// exhaustive over: thread operations, not plain memory accesses.
func scopeNote(t *target) string {
	if t.goPkg {
		return "Scope: goroutine operations; plain memory accesses were not scheduling points (shared variables read and written " +
			"without a synchronisation between are not reordered; Go's race detector, on by default for plain Go, reports such races)."
	}
	if t.memory {
		return "Scope: thread operations, and the loads, stores and atomic operations on global variables and the heap " +
			"(memory instrumentation); accesses to stacks and thread-local storage were not scheduling points."
	}
	return "Scope: thread operations; plain memory accesses were not scheduling points (memory shared without a thread " +
		"operation between is not reordered: build the program with --memory, as in stdbg find --memory prog.c or " +
		"stdbg cc --memory, or annotate it with stdbg_read/stdbg_write)."
}

// findOutputs are the files find writes besides its report.
type findOutputs struct {
	sarif, html, graph string
}

// graphLimit is the most states find --graph draws.
var graphLimit = 2000

func (a *app) find(args []string, run string, outs findOutputs) error {
	p, err := a.plan()
	if err != nil {
		return err
	}
	if err := checkOutput("sarif", outs.sarif); err != nil {
		return err
	}
	if err := checkOutput("html", outs.html); err != nil {
		return err
	}
	if err := checkOutput("graph", outs.graph); err != nil {
		return err
	}
	if outs.graph != "" {
		// One recorder sees every execution: the search runs in one copy.
		if p.shards > 1 {
			return usageErr("--graph draws a whole search: it cannot be combined with --shard")
		}
		p.split = false
	}
	for _, n := range p.notes {
		fmt.Fprintf(a.stderr, "stdbg: %s\n", n)
	}
	// ^C, SIGTERM or SIGHUP stops the search: the bugs found so far are
	// printed and saved, without minimising them. Watched from here on: a
	// signal while the target is built or started (seconds for a Go
	// package) ends stdbg cleanly once the target is up, never by the
	// signal's default action, which would leave its processes behind.
	stopper := newStopper()
	defer stopper.stop()
	ctx := stopper.ctx
	t, err := resolveTarget(args, run, a.v.GetBool("races"), a.v.GetBool("memory"))
	if err != nil {
		return err
	}
	for _, w := range t.warnings {
		fmt.Fprintln(a.stderr, "stdbg: warning:", w)
	}
	a.seedRand(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	var s *session
	if a.stateful() {
		s, err = a.startTarget(t, io.Discard, io.Discard, true, stateEnv)
	} else {
		s, err = a.start(t, io.Discard, io.Discard, true)
	}
	if err != nil {
		return err
	}
	defer s.close()
	if a.stateful() {
		s.proc.SetFlags(s.proc.Flags() | wire.FlagState)
	}
	a.cpus = ctarget.ClaimCPUs(2 * a.jobs())
	defer a.cpus.Release()
	a.place(s, 0, 1)

	if ctx.Err() != nil {
		return &exitError{code: stopper.exitCode(), err: fmt.Errorf("stopped by %v before the search began", stopper.signal())}
	}
	// A budget is a budget: the search gets four fifths of it when bugs
	// are to be minimised, and minimisation what is left of the whole.
	searchCtx, minCtx := ctx, ctx
	if p.budget > 0 {
		searchBudget := p.budget
		if !a.v.GetBool("no-minimise") {
			searchBudget = p.budget * 4 / 5
		}
		var cancel, cancelMin context.CancelFunc
		searchCtx, cancel = context.WithTimeout(ctx, searchBudget)
		defer cancel()
		minCtx, cancelMin = context.WithTimeout(ctx, p.budget)
		defer cancelMin()
	}
	maxDepth := a.maxDepth(t)
	var ex search.Executor = s.chk
	var prof *schedprof.Recorder
	if path := a.v.GetString("profile"); path != "" {
		s.proc.SetFlags(s.proc.Flags() | wire.FlagStacks)
		prof = schedprof.NewRecorder(s.chk, s.syms)
		prof.Binary = t.binary
		ex = prof
	}
	var graph *stategraph.Recorder
	if outs.graph != "" {
		graph = stategraph.NewRecorder(ex, s.syms, graphLimit, a.stateful())
		ex = graph
	}
	prog := newProgress(a.stderr, a.v.GetBool("quiet"))
	defer prog.stop()
	opts := search.Options{MaxDepth: maxDepth, All: a.v.GetBool("all"),
		MaxExecutions: p.executions, Progress: prog.update, Visited: a.v.GetBool("visited"), Livelock: a.v.GetBool("livelock"),
		Graph: a.v.GetString("ltl") != ""}
	if !a.v.GetBool("quiet") {
		// Said at once: a run killed later (while minimising) has shown
		// what it found.
		var mu sync.Mutex
		said := map[string]bool{}
		opts.OnBug = func(b search.Bug) {
			mu.Lock()
			defer mu.Unlock()
			if said[b.Outcome.Key()] {
				return
			}
			said[b.Outcome.Key()] = true
			prog.clear()
			sched := search.LassoString(b.Schedule, b.Cycle)
			if len(b.Schedule) > 40 { // the path once, in the command that replays it
				fmt.Fprintf(a.stderr, "stdbg: bug found (%s): %s; %d steps (replay: %s)\n", b.Outcome.Kind, report.Summary(b.Outcome.Message),
					len(b.Schedule), replayCommand(t, sched))
				return
			}
			fmt.Fprintf(a.stderr, "stdbg: bug found (%s): %s; Path = %s (replay: %s)\n", b.Outcome.Kind, report.Summary(b.Outcome.Message), sched,
				replayCommand(t, sched))
		}
	}
	var (
		res         *search.Result
		premin      []*search.Minimised // minimised in the target
		budgetSpent bool
		inTarget    bool // searched in the target, bugs confirmed in fresh processes
	)
	if a.inTarget(t, p, outs) {
		found, ierr := a.exploreInTarget(ctx, t, s, p, maxDepth, opts, prog)
		switch {
		case ierr == nil:
			res, premin, budgetSpent, inTarget = &found.Result, found.Minimised, found.BudgetSpent, true
		case ctx.Err() != nil:
			res = &search.Result{}
		default:
			prog.clear()
			fmt.Fprintln(a.stderr, "stdbg:", inTargetFallback(ierr))
			if errors.Is(ierr, search.ErrNondeterministic) {
				a.noReuse = true
				s.proc.DisableReuse()
			}
		}
	}
	if res == nil {
		res, err = a.explore(searchCtx, t, s, ex, p, opts)
		budgetSpent = searchCtx.Err() != nil
	}
	if !inTarget && (err != nil && errors.Is(err, search.ErrNondeterministic) && t.goPkg && s.proc.Reused() > 0 ||
		err == nil && t.goPkg && s.proc.Reused() > 0 && !a.confirmFresh(s, res.Bugs, maxDepth)) {
		// A Go program runs execution after execution in one process:
		// one that keeps state from one to the next (package-level
		// variables) does not repeat itself. Start again, with a fresh
		// process for every execution.
		prog.clear()
		fmt.Fprintln(a.stderr, "stdbg: the program does not repeat itself in a process that ran earlier executions "+
			"(state it keeps in the process: the environment, files, another package's variables?): searching again with a fresh process per execution")
		a.noReuse = true
		s.proc.DisableReuse()
		res, err = a.explore(searchCtx, t, s, ex, p, opts)
		budgetSpent = searchCtx.Err() != nil
	}
	prog.clear()
	if prof != nil {
		s.proc.SetFlags(s.proc.Flags() &^ wire.FlagStacks)
	}
	interrupted := ctx.Err() != nil
	why := stopNone
	switch {
	case interrupted:
		why = stopInterrupted
	case budgetSpent:
		why = stopBudget
	}
	if err != nil && why == stopNone {
		return &exitError{code: exitUsage, err: fmt.Errorf("exploring %s: %w", t.arg, err)}
	}
	if prof != nil {
		if err := prof.WriteFile(a.v.GetString("profile")); err != nil {
			// The bugs found matter more: report them all the same.
			fmt.Fprintf(a.stderr, "stdbg: %v\n", err)
		}
	}
	if why == stopNone && (len(res.Bugs) == 0 || a.v.GetBool("all")) {
		lb, err := a.checkLTL(res)
		if err != nil {
			return err
		}
		if lb != nil {
			res.Bugs = append(res.Bugs, *lb)
		}
	}

	out := findResult{Target: t.arg, Binary: t.binary, MaxDepth: maxDepth, Stats: report.FromStats(res.Stats),
		Complete: res.Complete, DepthLimited: res.DepthLimited, Interrupted: interrupted, Bugs: []*report.Report{},
		Strategy: p.name, Sampled: p.sampled, Coverage: p.coverage(res, why, maxDepth), Scope: "thread operations"}
	out.scopeNote = scopeNote(t)
	out.SearchedIn = "stdbg"
	if inTarget {
		out.SearchedIn = "target"
	}
	if t.goPkg {
		out.Scope = "goroutine operations"
	}
	if t.memory {
		out.Scope, out.MemoryPoints = "thread operations and global and heap memory", true
	}
	if p.sampled {
		out.Seed = p.seed
	}
	if p.pb != nil {
		out.Bounds = p.pb.Bounds()
	}
	dir := a.v.GetString("corpus")
	if dir == "" {
		dir = corpus.DefaultDir(t.arg)
	}
	for i, bug := range res.Bugs {
		original := bug.Schedule
		var min *search.Minimised
		budgetSpent := false
		if i < len(premin) && premin[i] != nil {
			m := premin[i]
			min = m
			bug.Schedule = m.Schedule
			bug.Outcome = m.Outcome
			out.Stats.Executions += m.Stats.Executions
			out.Stats.Transitions += m.Stats.Transitions
		} else if !a.v.GetBool("no-minimise") && !interrupted && bug.Cycle == nil {
			m, err := search.Minimise(minCtx, s.chk, bug, search.MinimiseOptions{MaxDepth: maxDepth,
				MaxExecutions: int64(a.v.GetInt("minimise-executions")), Exhaustive: true, Progress: prog.minimising})
			prog.clear()
			if err == nil {
				min = m
				bug.Schedule = m.Schedule
				bug.Outcome = m.Outcome
				out.Stats.Executions += m.Stats.Executions
				out.Stats.Transitions += m.Stats.Transitions
			} else if minCtx.Err() == nil {
				fmt.Fprintf(a.stderr, "stdbg: could not minimise the %s: %v\n", bug.Outcome.Kind, err)
			} else {
				budgetSpent = !interrupted && ctx.Err() == nil
			}
		}
		var r *report.Report
		if bug.Cycle != nil {
			r, err = a.explainLasso(s, bug)
		} else {
			r, err = a.explain(s, bug, maxDepth)
		}
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		r.Replay = replayCommand(t, search.LassoString(bug.Schedule, bug.Cycle))
		if budgetSpent {
			r.Notes = append(r.Notes, "not minimised: the budget was spent before minimisation could start")
		}
		if min != nil {
			r.Minimised = &report.Minimisation{FromLength: min.OriginalLength, FromPreemptions: min.OriginalPreemptions,
				Length: min.Length, Preemptions: min.Preemptions, Proven: min.Proven, Executions: min.Stats.Executions,
				Original: min.Original.String()}
		}
		if !a.v.GetBool("no-save") {
			if min != nil {
				original = min.Original
			}
			e := newEntry(t, dir, r, bug, original, maxDepth, r.Preemptions)
			e.Search.Strategy = p.entryName()
			if p.sampled {
				e.Search.Seed = int64(p.seed)
			}
			e.Search.Reduction = p.reduction
			path, existed, err := corpus.Save(dir, e)
			if err != nil {
				r.Notes = append(r.Notes, "not saved: "+err.Error())
			} else {
				r.Saved, r.AlreadySaved = path, existed
				r.Replay = "stdbg replay " + shellQuote(path)
			}
		}
		out.Bugs = append(out.Bugs, r)
	}

	if a.v.GetBool("json") {
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(a.stdout, string(b))
	} else {
		a.printFind(&out)
	}
	if outs.sarif != "" {
		if err := writeSARIF(outs.sarif, out.Bugs, nil); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	}
	if graph != nil {
		if err := writeGraph(outs.graph, graph, t.arg); err != nil {
			return err
		}
	}
	if outs.html != "" {
		summary := []string{out.Coverage}
		if out.Complete {
			summary = append(summary, out.scopeNote)
		}
		if err := writeHTML(outs.html, t.arg, out.Bugs, append(summary, report.FormatStats(out.Stats))); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	}
	if len(out.Bugs) > 0 {
		return bugFound
	}
	if interrupted {
		return &exitError{code: stopper.exitCode()}
	}
	return nil
}
