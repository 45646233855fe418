package session

import (
	"context"
	"errors"
	"time"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/ltl"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/internal/symbolize"
	"github.com/stdbg/stdbg/model/wire"
)

// Find is one hunt for bugs in a session's target, as every front end
// runs it (stdbg find, the test runner, the grader): the search of a plan,
// inside the target when it can, the minimisation of each bug, its
// explanation (a replay with full stacks) and its entry in a corpus.
type Find struct {
	// Plan is the search and what it may use.
	Plan Plan
	// Visited, Livelock and Graph are search.Options': a stateful search,
	// the detection of livelocks, the state graph (which LTL needs, and
	// sets). A stateful search (any of them, or LTL) needs a stateful
	// Plan.Spec (search.Spec.CheckOptions) and, for a C program, a
	// session started with Options.State, for its heap to be tracked from
	// its start; Find refuses it otherwise, with the reason. It runs from
	// here, in one copy of the program.
	Visited, Livelock, Graph bool
	// Fairness is what the livelock and LTL checks take a fair run to be
	// (search.Options.Fairness; default weak).
	Fairness search.Fairness
	// LTL, if not nil, is checked on the state graph of a complete search.
	LTL *ltl.Formula
	// Hooks are told of the search as it runs.
	Hooks Hooks
	// Warn, if not nil, is told of what went wrong without ending the hunt
	// (hunt.Config.Warn).
	Warn func(string)
	// Watch, if not nil, wraps the session's executor in recorders (a
	// profile, a drawing of the state graph) for the search, not the
	// minimisation; syms names the program's addresses; done is called
	// when the search ends. It is used when Plan.Watched is set (the
	// search then runs from here), and only then.
	Watch func(ex search.Executor, syms *symbolize.Symbolizer) (watched search.Executor, done func())
	// Stacks asks the program for full stacks at every step of the
	// search, for Watch's recorders (a profile); the minimisation runs
	// without.
	Stacks bool
	// Corpus, if not nil, is where each bug is saved.
	Corpus *hunt.Corpus
	// MinimiseNoReduction proves minimisations without the model's
	// independence: for a user who asked for every schedule (--reduction
	// none) because they do not trust it.
	MinimiseNoReduction bool
	// MinimiseByWork bounds each minimisation by its executions
	// (Plan.MinimiseExecutions) and ctx alone, not by a multiple of the
	// search's wall time (hunt.MinimiseTime) nor the budget's share: a
	// front end whose output must not depend on the machine's speed (the
	// grader) keeps its own wall-clock safety net in ctx.
	MinimiseByWork bool
	// NoExplain leaves the reports out (a front end that wants the
	// minimised schedules alone).
	NoExplain bool
	// Pick, if not nil, chooses the bugs to minimise, explain and save
	// among those the search found (hunt.Config.Pick): a front end that
	// reports only some kinds spends no time on the others.
	Pick func([]search.Bug) []search.Bug
	// Reported, if not nil, is told of each bug as soon as it is found,
	// explained and saved, then again when it is minimised
	// (hunt.Config.Reported). A search inside a Go target then leaves
	// minimisation to this process, after the report.
	Reported func(*hunt.Finding)
}

// Found is what a Find found.
type Found struct {
	hunt.Result
	// InTarget reports a search that ran inside the target's process
	// (each bug confirmed in a fresh one).
	InTarget bool
	// Coverage is what the search covered, as every front end says it.
	Coverage Coverage
}

// Find runs f on the session's target. ctx stops it (a signal): the bugs
// found so far are explained and saved, not minimised, as hunt.Run says.
func (s *Session) Find(ctx context.Context, f *Find) (*Found, error) {
	p := &f.Plan
	if p.MaxDepth == 0 {
		plan := *p
		plan.MaxDepth = s.Target.MaxDepth()
		p = &plan
	}
	opts := p.SearchOptions(search.Options{Progress: f.Hooks.Progress, OnBug: f.Hooks.OnBug,
		Visited: f.Visited, Livelock: f.Livelock, Graph: f.Graph || f.LTL != nil, Fairness: f.Fairness})
	err := s.checkStateful(p, opts)
	if err != nil {
		return nil, err
	}
	if opts.Stateful() {
		s.proc.SetFlags(s.proc.Flags() | wire.FlagState)
		// Every transition reports the state the search looks up: the
		// search runs from here (the search inside a Go target keeps no
		// visited set).
		plan := *p
		plan.Watched = true
		p = &plan
	}
	if p.Strategy == nil && p.Search.Bounded() {
		// Kept, for the coverage to say which bounds were finished (a
		// bounded search runs in one copy, from here).
		plan := *p
		if plan.Strategy, err = p.Search.New(); err != nil {
			return nil, err
		}
		p = &plan
	}
	if s.cpus == nil {
		s.ClaimCPUs(p.jobs())
	}
	ex, done := search.Executor(s.checker), func() {}
	if f.Watch != nil && p.Watched {
		ex, done = f.Watch(ex, s.symbols())
	}
	if f.Stacks {
		s.proc.SetFlags(s.proc.Flags() | wire.FlagStacks)
		watchDone := done
		done = func() { watchDone(); s.proc.SetFlags(s.proc.Flags() &^ wire.FlagStacks) }
	}
	searched := p
	if f.Reported != nil && p.Minimise {
		// Report first: the target stops at its bugs, minimised here.
		// Its budget is the search's share (hunt.Deadlines).
		plan := *p
		plan.Minimise = false
		if p.Budget > 0 {
			now := time.Now()
			until, _ := hunt.Deadlines(now, p.Budget, true)
			plan.Budget = until.Sub(now)
		}
		searched = &plan
	}
	var until time.Time // the budget's end, which the replays that confirm a bug keep
	if p.Budget > 0 {
		until = time.Now().Add(p.Budget)
	}
	explore, inTarget := s.Explorer(ctx, until, searched, ex, f.Hooks)
	cfg := hunt.Config{
		Executor: s.checker, Strategy: p.Strategy, Request: p.Request, Options: opts, LTL: f.LTL,
		Explore: func(ctx context.Context, opts search.Options) (*hunt.Explored, error) {
			defer done()
			return explore(ctx, opts)
		},
		MinimiseProgress:    f.Hooks.Minimising,
		MinimiseNoReduction: f.MinimiseNoReduction,
		Nondeterminism:      Nondeterminism,
		Hints:               s.ReuseHints,
		ReplayCommand:       s.Target.ReplayCommand,
		Warn:                f.Warn,
		Corpus:              f.Corpus,
		Pick:                f.Pick,
		Reported:            f.Reported,
		// Minimisation runs here, on the session's process: a step still
		// running at its end is cut.
		StepDeadline: s.proc.SetDeadline,
	}
	if f.MinimiseByWork {
		cfg.MinimiseContext = ctx
	}
	if !f.NoExplain {
		cfg.Explain = func(ctx context.Context, bug search.Bug) (*hunt.Explanation, error) {
			return s.Explain(ctx, bug, p.MaxDepth)
		}
	}
	res, err := hunt.Run(ctx, cfg)
	if res == nil {
		return nil, err
	}
	found := &Found{Result: *res, InTarget: *inTarget}
	found.Coverage = coverageOf(p, p.Strategy, s.Target, found)
	return found, err
}

// checkStateful refuses a search whose options and plan do not go together
// soundly (search.Spec.CheckOptions), and a stateful search of a C program
// whose session was started without Options.State: the library would not
// have tracked the heap blocks the program allocated before the search
// asked, and would take different states for one.
func (s *Session) checkStateful(p *Plan, opts search.Options) error {
	if err := p.Search.CheckOptions(opts); err != nil {
		return err
	}
	if opts.Stateful() && !s.Target.Go && !s.opts.State {
		return errors.New("a stateful search of a C program needs a session started with Options.State, for the library to track the program's heap from its start")
	}
	return nil
}
