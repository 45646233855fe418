package session

import (
	"cmp"
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/target/targetsearch"
)

// Plan is a search of a session's target and what it may use.
type Plan struct {
	// Request is the hunt: the search (normal: see search.Spec.Normal),
	// its bounds (a MaxDepth of 0: the target's, Target.MaxDepth) and
	// budget (hunt.Deadlines splits it), the part of a divided search it
	// is (--shard I/N; Shards <= 1: the whole), and the minimisation,
	// which the in-target search makes where it runs.
	hunt.Request
	// Strategy, if not nil, is the strategy of Search that the search runs
	// in one copy of the program (a front end that asks it for its account
	// afterwards: the bounds a bounded search finished); a divided search
	// makes its own from Search.
	Strategy search.Strategy
	// Jobs is the number of copies of the program an exhaustive search
	// may be divided among (0: one per two CPUs).
	Jobs int
	// InTarget lets a Go target run the whole search inside its own
	// process (ten times faster), each bug confirmed in a fresh one.
	InTarget bool
	// Watched says that something watches every transition of the
	// search (a profile, a drawing): it runs in one copy of the program,
	// from here. (Find runs a stateful search so whatever this says.)
	Watched bool
}

// Jobs is the number of executions a plan runs at once: by default one
// per two CPUs, since each copy of the program runs best beside its own
// checker thread on a CPU of its own (docs/parallel.md).
func (p *Plan) jobs() int {
	if p.Jobs > 0 {
		return p.Jobs
	}
	return max(1, runtime.NumCPU()/2)
}

// JobsFor is Plan.Jobs resolved: jobs, or one per two CPUs when 0.
func JobsFor(jobs int) int { return (&Plan{Jobs: jobs}).jobs() }

// split reports whether the search may be divided among copies of the
// program and shards: an exhaustive search (ExploreSplit) or the
// portfolio (ExplorePortfolio).
func (p *Plan) split() bool { return (p.Search.Splittable() || p.Search.Portfolio()) && !p.Watched }

// search is the search the plan runs: its Spec, but for a part of a
// divided search (--shard), which is a part of the exhaustive search
// alone (a portfolio's exhaustive member).
func (p *Plan) search() search.Spec {
	if p.Shards > 1 && p.Search.Portfolio() {
		return p.Search.Exhaustive()
	}
	return p.Search
}

// Hooks are what a front end is told while a search runs.
type Hooks struct {
	// Progress and Minimising get the statistics of the search and of a
	// minimisation under way; OnBug, each bug as found (search.Options').
	Progress, Minimising func(search.Stats)
	OnBug                func(search.Bug)
	// Note, if not nil, is told of what the search does differently than
	// asked, in one line (it falls back on a fresh process per execution).
	Note func(string)
}

func (h *Hooks) note(msg string) {
	if h.Note != nil {
		h.Note(msg)
	}
}

// Explorer returns the search of plan p for hunt.Config.Explore: ex is the
// session's checker, or it wrapped in recorders; stop is the front end's
// context (a signal), which a search inside the target heeds in place of
// the search's own (the target keeps the budget's deadlines itself, to
// minimise after it searched). It searches inside a Go
// target when it can (confirming each bug in a fresh process), else from
// here, divided among copies of the program when the search outlives a
// trial in one copy; and it falls back, saying so through hooks.Note, on a
// fresh process per execution when a Go program does not repeat itself in
// a process that ran earlier executions, and on real threads when a C
// program does not behave the same with its threads run as contexts.
// InTarget reports, after the search, whether it ran inside the target.
// until is the end of the whole budget (zero: none), which bounds the
// replays that confirm the bugs found: one it cuts leaves its bug as
// found, with a note that says so (Unconfirmed).
func (s *Session) Explorer(stop context.Context, until time.Time, p *Plan, ex search.Executor, hooks Hooks) (explore func(context.Context, search.Options) (*hunt.Explored, error), inTarget *bool) {
	in := new(bool)
	return func(ctx context.Context, opts search.Options) (*hunt.Explored, error) {
		return s.explore(stop, ctx, until, p, ex, hooks, opts, in)
	}, in
}

func (s *Session) explore(stop, ctx context.Context, until time.Time, p *Plan, ex search.Executor, hooks Hooks, opts search.Options, inTarget *bool) (*hunt.Explored, error) {
	t := s.Target
	there := s.searchesInTarget(p)
	if t.Go && p.InTarget && !there && t.KeepsState() {
		// Why each execution runs in a fresh process: the variables the
		// search inside the target could not put back, or all of them
		// when it does not run there for another reason.
		vars := t.KeptState()
		if len(vars) == 0 {
			vars = t.State()
		}
		hooks.note(StateNote(vars))
	}
	if there {
		found, cut, err := s.exploreInTarget(stop, until, p, hooks)
		switch {
		case err == nil:
			*inTarget = true
			return &hunt.Explored{Result: found.Result, Minimised: found.Minimised, BudgetSpent: found.BudgetSpent,
				Notes: unconfirmed(cut)}, nil
		case stop.Err() != nil:
			return &hunt.Explored{}, nil
		case errors.Is(err, search.ErrCannotJudge):
			// A verdict on the program, not a failure of the search
			// inside it: searching from here would meet the same.
			return &hunt.Explored{}, fmt.Errorf("exploring %s: %w", t.Arg, err)
		}
		hooks.note(inTargetFallback(err, t.Restores()))
		if errors.Is(err, search.ErrNondeterministic) {
			s.opts.NoReuse = true
			s.proc.DisableReuse()
		}
	}
	res, err := s.exploreHere(ctx, p, ex, opts)
	var cut []search.Bug // bugs whose confirmation the budget cut
	confirmed := func(res *search.Result) bool {
		ok, c := s.confirmFresh(until, res.Bugs, p.MaxDepth)
		cut = c
		return ok
	}
	if t.Go && s.proc.Reused() > 0 &&
		(err != nil && errors.Is(err, search.ErrNondeterministic) || err == nil && !confirmed(res)) {
		// A Go program runs execution after execution in one process:
		// one that keeps state from one to the next (package-level
		// variables) does not repeat itself. Start again, with a fresh
		// process for every execution.
		hooks.note(inTargetFallback(search.ErrNondeterministic, false))
		s.opts.NoReuse = true
		s.proc.DisableReuse()
		res, err = s.exploreHere(ctx, p, ex, opts)
	}
	if !t.Go && s.proc.Contexts() &&
		(err != nil && errors.Is(err, search.ErrNondeterministic) || err == nil && len(res.Bugs) > 0 && !confirmed(res)) {
		// The program's threads ran as contexts on one kernel thread:
		// a program that tells kernel threads apart (system calls made
		// without the C library) can behave otherwise than with real
		// threads, as in the fresh process the bug was replayed in.
		hooks.note(ContextsFallback)
		s.proc.DisableContexts()
		res, err = s.exploreHere(ctx, p, ex, opts)
	}
	if res == nil {
		res = &search.Result{}
	}
	if err != nil {
		err = fmt.Errorf("exploring %s: %w", t.Arg, err)
	}
	// (A step cut at the deadline may end the search before the
	// context's own timer has fired.)
	return &hunt.Explored{Result: *res, BudgetSpent: ctx.Err() != nil || errors.Is(err, search.ErrStepCut), Notes: unconfirmed(cut)}, err
}

// ContextsFallback says why a C search runs again with real threads.
const ContextsFallback = "the program does not behave the same with its threads run as contexts on one kernel thread " +
	"(does it ask the kernel which thread it is, without the C library?): searching again with real threads"

// exploreHere runs the search from this process, with the session's
// program (through ex, which may wrap it) alone, or, for an exhaustive
// search, divided among copies of the program and shards.
func (s *Session) exploreHere(ctx context.Context, p *Plan, ex search.Executor, opts search.Options) (*search.Result, error) {
	// A step still running when the search's share of the budget ends is
	// cut there, in every copy of the program.
	until, _ := ctx.Deadline()
	s.proc.SetDeadline(until)
	defer s.proc.SetDeadline(time.Time{})
	jobs := p.jobs()
	spec := p.search()
	st := p.Strategy
	if st == nil || p.Shards > 1 {
		var err error
		if st, err = spec.New(); err != nil {
			return nil, err
		}
	}
	if !p.split() || (jobs <= 1 && p.Shards <= 1) {
		return search.Explore(ctx, ex, st, opts)
	}
	var trial *search.Result
	if p.Shards <= 1 {
		// Most searches are small, and dividing one costs more than it
		// saves (finding the parts, starting more copies of the
		// program): run in one copy first, and divide only a search
		// that outlives the trial.
		o := opts
		if o.MaxExecutions == 0 || o.MaxExecutions > TrialExecutions {
			o.MaxExecutions = TrialExecutions
		}
		tctx, cancel := context.WithTimeout(ctx, TrialTime)
		res, err := search.Explore(tctx, ex, st, o)
		cancel()
		switch {
		case ctx.Err() != nil:
			return res, err
		case err != nil && !errors.Is(err, context.DeadlineExceeded):
			return res, err
		case err == nil && (res.Complete || (len(res.Bugs) > 0 && !opts.All) ||
			(opts.MaxExecutions > 0 && res.Stats.Executions >= opts.MaxExecutions)):
			return res, nil
		}
		trial = res
		if opts.MaxExecutions > 0 {
			opts.MaxExecutions -= res.Stats.Executions // the trial's count
		}
	}
	newEx := func(w int) (search.Executor, func(), error) {
		runtime.LockOSThread()
		if w == 0 {
			s.place(s, 0, jobs)
			return s.checker, func() { s.proc.Unpin(); runtime.UnlockOSThread() }, nil
		}
		o := s.opts
		o.Stdout, o.Stderr = io.Discard, io.Discard
		ws, err := Start(s.Target, o)
		if err != nil {
			runtime.UnlockOSThread()
			return nil, nil, err
		}
		s.place(ws, w, jobs)
		ws.proc.SetDeadline(until)
		return ws.checker, func() { ws.Close(); runtime.UnlockOSThread() }, nil
	}
	newStrategy := func() search.Strategy {
		st, _ := spec.New() // checked above
		return st
	}
	split := search.Split{Workers: jobs, Shard: p.Shard, Shards: p.Shards}
	var res *search.Result
	var err error
	if spec.Portfolio() {
		res, err = search.ExplorePortfolio(ctx, newEx, spec, opts, split)
	} else {
		res, err = search.ExploreSplit(ctx, newEx, newStrategy, opts, split)
	}
	s.place(s, 0, 1) // back to one worker, for minimising
	if trial != nil && res != nil {
		// The divided search starts over; the trial's work counts.
		elapsed := res.Stats.Elapsed + trial.Stats.Elapsed
		res.Stats = res.Stats.Add(trial.Stats)
		res.Stats.Elapsed = elapsed
	}
	return res, err
}

// A divided search first runs in one copy of the program for up to
// TrialExecutions executions or TrialTime (variables for the tests).
var (
	TrialExecutions int64 = 2000
	TrialTime             = 2 * time.Second
)

// searchesInTarget reports whether the search runs inside the target: a
// Go program or test that can run execution after execution in one
// process (no package-level state, or only variables that the search puts
// back before each execution: Target.KeptState), with a search that needs nothing of
// this process at each transition (nothing watches it) and no account of
// preemption bounds; a part (--shard) of a search of a target built with
// the race detector is driven from here too, since such a target searches
// in one goroutine only.
func (s *Session) searchesInTarget(p *Plan) bool {
	t := s.Target
	return t.Go && p.InTarget && !s.opts.NoReuse && os.Getenv("STDBG_REUSE") != "0" &&
		!p.Search.Bounded() && !p.Watched && !(p.Shards > 1 && raceBuilt(t.Binary)) && len(t.KeptState()) == 0
}

// raceBuilt reports whether the Go executable was built with the race
// detector (plain Go targets are, by default).
func raceBuilt(exe string) bool {
	bi, err := buildinfo.ReadFile(exe)
	if err != nil {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// spec is the search of the plan as a target runs it.
func (p *Plan) spec() targetsearch.Spec {
	sp := targetsearch.Spec{Request: p.Request}
	sp.Search = p.search()
	return sp
}

// exploreInTarget runs the search inside the target, in as many processes
// as the plan may, and confirms each bug in a fresh process, within the
// budget that ends at until (zero: none). It returns what was found, with
// each bug's minimisation (nil where none was made), and the bugs whose
// confirmation the budget cut (kept as the search found them); an error
// means the search is to be run out of process instead.
func (s *Session) exploreInTarget(ctx context.Context, until time.Time, p *Plan, hooks Hooks) (*targetsearch.Found, []search.Bug, error) {
	t := s.Target
	jobs := 1
	if p.split() && !raceBuilt(t.Binary) {
		// A target built with the race detector searches in one process:
		// ExploreSplit's goroutines would share the search's data under a
		// detector that sees none of their synchronisation (see
		// targetsearch.Serve).
		jobs = p.jobs()
	}
	spec := p.spec()
	spec.TransitionTimeout = s.opts.TransitionTimeout
	spec.Vars = len(t.restored)
	cfg := targetsearch.Config{
		Binary: t.Binary, Args: t.RunArgs(), Env: envWith(append([]string(nil), t.Env...)),
		Dir: cmp.Or(s.opts.Dir, t.Dir), Wrap: s.opts.Wrap,
		Spec: spec, Jobs: jobs,
		// Only as far as the schedule: the process died in its last
		// step, or the death was not the schedule's, and going on would
		// run the program to the depth bound, past any budget.
		Replay: func(ctx context.Context, sched schedule.Schedule) (*search.Outcome, error) {
			if d, ok := ctx.Deadline(); ok {
				// A step still running at the search's end is cut too.
				s.proc.SetDeadline(d)
				defer s.proc.SetDeadline(time.Time{})
			}
			return s.replayFresh(ctx, sched, len(sched))
		},
		Progress: hooks.Progress, Minimising: hooks.Minimising, OnBug: hooks.OnBug,
		OnEnd: func(e targetsearch.End, how string) {
			hooks.note(fmt.Sprintf("the program ended its process during schedule %s (%s; a fresh run of it: %s): the search goes on in a new process",
				e.Schedule, how, e.Outcome.Kind))
		},
	}
	if s.opts.Served != nil && jobs == 1 {
		if found := s.opts.Served(ctx, cfg); found != nil {
			return found, nil, nil
		}
	}
	found, err := targetsearch.Run(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	// Each bug is confirmed by its schedule in a fresh process, whose
	// outcome (named and placed as out of process) is the bug's. A
	// confirmation that the budget cuts leaves the bug as found.
	var cut []search.Bug
	for i := range found.Bugs {
		b := &found.Bugs[i]
		if b.Cycle != nil {
			continue
		}
		o, stopped, err := s.confirm(until, b.Schedule, p.MaxDepth)
		switch {
		case stopped:
			cut = append(cut, *b)
			continue
		case err != nil:
			return nil, nil, fmt.Errorf("confirming the %s: %w", b.Outcome.Kind, err)
		case o == nil || o.Kind != b.Outcome.Kind:
			return nil, nil, fmt.Errorf("%w: the %s found in the target did not happen in a fresh process", search.ErrNondeterministic, b.Outcome.Kind)
		}
		b.Outcome = *o
		if m := found.Minimised[i]; m != nil {
			o, stopped, err := s.confirm(until, m.Schedule, p.MaxDepth)
			switch {
			case stopped:
				// Kept as the search minimised it: the bug is
				// confirmed, and the budget leaves no time to
				// minimise it again.
			case err == nil && o != nil && o.Kind == m.Outcome.Kind:
				m.Outcome = *o
			default:
				found.Minimised[i] = nil // not confirmed: minimised again here
			}
		}
	}
	return found, cut, nil
}

// StateNote says why the search of a Go target runs each execution in a
// fresh process, naming the package-level variables that keep state from
// one execution to the next (goinstr.PackageState: "name (file:line)").
func StateNote(vars []string) string {
	const shown = 5
	list := strings.Join(vars[:min(len(vars), shown)], ", ")
	if len(vars) > shown {
		list += fmt.Sprintf(" and %d more", len(vars)-shown)
	}
	return "each execution runs in a fresh process, slower than a search inside one: the program may keep state from one execution " +
		"to the next in its package-level variables: " + list
}

// inTargetFallback says why the search runs out of process after all;
// restored says that the search put back the program's package-level
// variables before each execution.
func inTargetFallback(err error, restored bool) string {
	var se *search.StateError
	var de *targetsearch.DeathError
	switch {
	case errors.As(err, &se):
		return "the program keeps state in its process that the search cannot put back before each execution: " +
			se.State + ": searching again with a fresh process per execution"
	case errors.As(err, &de) && de.Unknown:
		return de.Error() + ": searching again with a fresh process per execution"
	case errors.As(err, &de):
		// Not the program's nondeterminism for sure: the death may be
		// the search's own, or the runtime's.
		return de.Error() + ": the death is not the schedule's (state that earlier executions left in the process, " +
			"or a fault of the search inside it): searching again with a fresh process per execution"
	case errors.Is(err, search.ErrNondeterministic) && restored:
		return "the program does not repeat itself in a process that ran earlier executions, though its package-level variables were put back " +
			"(state it keeps elsewhere in the process: the environment, files, variables of packages outside the module?): searching again with a fresh process per execution"
	case errors.Is(err, search.ErrNondeterministic):
		return "the program does not repeat itself in a process that ran earlier executions " +
			"(state it keeps in the process: the environment, files, another package's variables?): searching again with a fresh process per execution"
	case errors.Is(err, targetsearch.ErrTooManyDeaths):
		return "the program ended its process in the middle of the search too often: searching again from this process, transition by transition"
	}
	return fmt.Sprintf("searching inside the program failed (%v): searching again from this process, transition by transition", err)
}
