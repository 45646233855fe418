// Package oracle is a differential oracle for stdbg's verdicts: it
// generates small random concurrent programs over every operation kind of
// the model, for both runtimes (Go run in process under package sthread;
// C compiled and run under the interposition library), explores each one
// by running every schedule, and checks that every strategy that claims
// completeness (DPOR, unbounded preemption and delay bounding, the
// stateful search, the divided search of -j and --shard, the minimiser)
// reports exactly the same bugs, and that DPOR covers the same
// Mazurkiewicz traces. A disagreement is shrunk to a minimal program and
// written out as a reproducer.
package oracle

import (
	"context"
	"fmt"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
)

// goTarget is a Go program run by the interpreter.
type goTarget struct{ g *goProg }

func (t *goTarget) lang() Lang { return Go }

func (t *goTarget) executor(stateful bool) (search.Executor, func(), error) {
	var opts []sthread.Option
	if stateful {
		opts = append(opts, sthread.Visited())
	}
	ex, release := sthread.Executor(t.g.main(stateful), opts...)
	return &goExecutor{inner: ex}, release, nil
}

// Compare runs every schedule of p and each strategy whose name selected
// accepts (all when nil; see StrategyNames), and returns their verdicts and
// disagreements. The error reports a program that cannot run or a
// cancelled ctx, not a disagreement.
func Compare(ctx context.Context, p *Program, l Limits, selected func(name string) bool) (*Result, error) {
	t, release, err := newTarget(p)
	if err != nil {
		return nil, err
	}
	defer release()
	res, err := compare(ctx, t, l, selected)
	if err != nil {
		return res, err
	}
	return withSpin(ctx, p, res, l, selected)
}

// withSpin adds to res, for a program with spins, the spin check
// (checkSpin).
func withSpin(ctx context.Context, p *Program, res *Result, l Limits, selected func(name string) bool) (*Result, error) {
	if res.Skipped != "" || !p.has("spin", "retry") || selected != nil && !selected("spin") {
		return res, nil
	}
	d, err := checkSpin(ctx, p, l)
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		res.Disagree = append(res.Disagree, Disagreement{"spin", "error", err.Error()})
	}
	res.Disagree = append(res.Disagree, d...)
	return res, nil
}

// newTarget prepares p for its runtime.
func newTarget(p *Program) (target, func(), error) {
	if err := p.Check(); err != nil {
		return nil, nil, err
	}
	switch p.Lang {
	case Go:
		g, err := prepareGo(p)
		if err != nil {
			return nil, nil, err
		}
		return &goTarget{g: g}, func() {}, nil
	case C:
		return newCTarget(p)
	}
	return nil, nil, fmt.Errorf("unknown lang %q", p.Lang)
}
