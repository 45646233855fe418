package sthread

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// This file runs a check through the pipeline every front end shares
// (package hunt): the search of f's schedules in this process, the
// minimisation of each bug, its report and its corpus entry.

// functionNondeterminism is the guess at why a bug's replay ended
// otherwise than the search's execution.
const functionNondeterminism = "the checked function may do something nondeterministic between sthread calls"

// explore hunts the bugs of f; t, when not nil, is the test of a Check,
// whose corpus keeps them.
//
//go:norace
func explore(f func(), cfg *config, t testing.TB) (*Result, error) {
	if f == nil {
		return &Result{}, errors.New("nil function")
	}
	checkMu.Lock()
	defer checkMu.Unlock()
	st, err := cfg.search()
	if err != nil {
		return &Result{}, err
	}
	// The executions run in this process: a portfolio's members take
	// turns in its CPU time, not in wall time.
	st = search.InProcess(st)
	formula, err := cfg.formula()
	if err != nil {
		return &Result{}, err
	}
	ex := &inProcess{f: f, cfg: cfg}
	if cfg.req.Budget > 0 {
		// A step still running when the budget's share of the search and
		// the minimisation ends is cut there.
		_, until := hunt.Deadlines(time.Now(), cfg.req.Budget, cfg.req.Minimise)
		ex.until = until.UnixNano()
	}
	defer ex.pause()
	hc := hunt.Config{
		Executor: ex, Strategy: st, LTL: formula, Request: cfg.req,
		Options: search.Options{Visited: cfg.visited, Livelock: cfg.livelock, Graph: formula != nil},
		Explain: func(ctx context.Context, b search.Bug) (*hunt.Explanation, error) {
			// A replay with full stacks has a runner of its own.
			ex.pause()
			return explainBug(ctx, f, cfg, b)
		},
		Nondeterminism: functionNondeterminism,
	}
	if t != nil {
		hc.ReplayCommand = func(sched string) string { return replayCommand(t, sched) }
		hc.Corpus = corpusConfig(t, cfg)
	}
	hres, err := hunt.Run(context.Background(), hc)
	res := &Result{Stats: hres.Search.Stats, total: hres.Stats, Complete: hres.Search.Complete, DepthLimited: hres.Search.DepthLimited}
	for _, fd := range hres.Findings {
		res.Bugs = append(res.Bugs, newBug(fd))
	}
	if err == nil && formula != nil && len(hres.Notes) > 0 {
		return res, fmt.Errorf("checking %s: the exploration is incomplete: the formula cannot be checked", cfg.ltl)
	}
	if err != nil {
		return res, fmt.Errorf("exploring %s: %w", rt.FuncName(f), err)
	}
	return res, nil
}

// newBug is the Bug of a finding.
//
//go:norace
func newBug(fd *hunt.Finding) *Bug {
	o := fd.Bug.Outcome
	b := &Bug{Kind: o.Kind, Message: o.Message, Where: o.Where, Schedule: search.LassoString(fd.Bug.Schedule, fd.Bug.Cycle),
		Report: fd.Report, savedAt: fd.Saved, alreadySaved: fd.AlreadySaved, saveErr: fd.SaveErr}
	if fd.Report != nil {
		b.Message = fd.Report.Message
	}
	return b
}

// inProcess is the executor of a check: f's executions in this process,
// run by a runner started at the first execution and paused while a bug
// is explained (a replay with full stacks takes a runner of its own).
type inProcess struct {
	f   func()
	cfg *config
	r   *rt.Runner
	chk *executor.Executor
	// until is the end of the budget's share of the search and the
	// minimisation (Unix nanoseconds; 0: none): the runner cuts a step
	// still running then (rt.Runner.SetDeadline).
	until int64
}

// Start implements search.Executor.
//
//go:norace
func (p *inProcess) Start() (search.Execution, error) {
	if p.r == nil {
		p.r, p.chk = rt.Start(p.f, p.cfg.runtime(1, p.cfg.stateful()))
		p.r.SetDeadline(p.until)
	}
	return p.chk.Start()
}

// pause stops the runner, if one runs; the next execution starts another.
//
//go:norace
func (p *inProcess) pause() {
	if p.r != nil {
		p.r.Stop()
		p.r, p.chk = nil, nil
	}
}

// explainBug replays a bug (a lasso: its stem and one run of its cycle)
// with full stacks, for its report; without a report when it cannot. ctx
// ends with the budget: a replay it cuts, between two steps or in a step
// still running at its deadline, returns the error, and the hunt reports
// the bug as the search found it (hunt.AsFound), saying what was cut.
// checkMu must be held.
//
//go:norace
func explainBug(ctx context.Context, f func(), cfg *config, b search.Bug) (*hunt.Explanation, error) {
	rd, err := describe(ctx, f, cfg, hunt.Replay{Schedule: b.Schedule, Cycle: b.Cycle, MaxDepth: cfg.req.MaxDepth}, false)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, search.ErrStepCut) {
			return nil, err
		}
		return &hunt.Explanation{}, nil
	}
	return &hunt.Explanation{Report: rd.Report, Outcome: rd.Outcome, Lasso: rd.Lasso}, nil
}
