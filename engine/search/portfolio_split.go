package search

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ExplorePortfolio explores with the portfolio of spec (Spec.Members)
// divided as sp says. In one worker and one shard it is Explore with the
// portfolio. With several workers, the members take workers: the
// exhaustive member is divided among all but the last (ExploreSplit), and
// the last runs the other members, taking turns as in the portfolio; the
// search ends when the exhaustive member's is over (it is complete when
// that one is), or at the first bug of either (unless Options.All), and
// Options.MaxExecutions is shared in proportion. A search divided among
// shards (sp.Shards > 1) is the exhaustive member's alone: a shard is a
// part of an exhaustive search (ExploreSplit).
//
// newEx makes the executor of each worker, numbered from 0 (see
// NewExecutor). Options.OnBug and Options.Progress are called from one
// goroutine at a time; Progress gets the statistics of both sides summed,
// with the exhaustive member's estimate of its share done.
func ExplorePortfolio(ctx context.Context, newEx NewExecutor, spec Spec, opts Options, sp Split) (*Result, error) {
	n, _, err := spec.Normal()
	if err != nil {
		return &Result{}, err
	}
	if !n.Portfolio() {
		return &Result{}, fmt.Errorf("explore: %s is not a portfolio", n.Describe())
	}
	newExhaustive := func() Strategy { st, _ := n.Exhaustive().New(); return st }
	if sp.Shards > 1 {
		return ExploreSplit(ctx, newEx, newExhaustive, opts, sp)
	}
	if sp.Workers <= 1 {
		ex, closeEx, err := newEx(0)
		if err != nil {
			return &Result{}, err
		}
		defer closeEx()
		st, err := n.New()
		if err != nil {
			return &Result{}, err
		}
		return Explore(ctx, ex, st, opts)
	}
	return explorePortfolioSplit(ctx, newEx, n, newExhaustive, opts, sp.Workers)
}

// portfolioSides is the state shared by the two sides of a divided
// portfolio.
type portfolioSides struct {
	opts   Options
	stop   context.CancelFunc
	start  time.Time
	mu     sync.Mutex
	stats  [2]Stats // the latest of each side: 0 exhaustive, 1 sampling
	seen   map[string]bool
	first  string // the key of the first bug found
	byBug  bool   // a bug stopped the search
	lastPr time.Time
}

func (ps *portfolioSides) onBug(b Bug) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	k := b.Outcome.Key()
	if ps.seen[k] {
		return
	}
	ps.seen[k] = true
	if ps.first == "" {
		ps.first = k
	}
	if !ps.opts.All {
		ps.byBug = true
		ps.stop()
	}
	if ps.opts.OnBug != nil {
		ps.opts.OnBug(b)
	}
}

func (ps *portfolioSides) progress(side int, s Stats) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.stats[side] = s
	if ps.opts.Progress == nil || time.Since(ps.lastPr) < progressEvery {
		return
	}
	ps.lastPr = time.Now()
	sum := ps.stats[0].Add(ps.stats[1])
	sum.Explored = ps.stats[0].Explored
	sum.Elapsed = time.Since(ps.start)
	ps.opts.Progress(sum)
}

func explorePortfolioSplit(ctx context.Context, newEx NewExecutor, n Spec, newExhaustive func() Strategy, opts Options, workers int) (*Result, error) {
	inner, cancel := context.WithCancel(ctx)
	defer cancel()
	ps := &portfolioSides{opts: opts, stop: cancel, start: time.Now(), seen: map[string]bool{}}
	side := func(i int) Options {
		o := opts
		o.Failures = nil // two sides at once
		o.OnBug = ps.onBug
		o.Progress = func(s Stats) { ps.progress(i, s) }
		if opts.MaxExecutions > 0 {
			share := max(opts.MaxExecutions/int64(workers), 1)
			if i == 0 {
				share = max(opts.MaxExecutions-share, 1)
			}
			o.MaxExecutions = share
		}
		return o
	}
	sampling, err := n.WithoutExhaustive().New()
	if err != nil {
		return &Result{}, err
	}

	var sres *Result
	var serr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		ex, closeEx, err := newEx(workers - 1)
		if err != nil {
			serr = fmt.Errorf("starting worker %d: %w", workers, err)
			cancel()
			return
		}
		defer closeEx()
		sres, serr = Explore(inner, ex, sampling, side(1))
		if serr != nil && inner.Err() == nil {
			cancel() // a failure ends the search
		}
	}()
	eres, eerr := ExploreSplit(inner, newEx, newExhaustive, side(0), Split{Workers: workers - 1})
	cancel() // over: the sampling side stops
	wg.Wait()
	if sres == nil {
		sres = &Result{}
	}
	if eres == nil {
		eres = &Result{}
	}

	res := &Result{Stats: eres.Stats.Add(sres.Stats), DepthLimited: eres.DepthLimited || sres.DepthLimited,
		Cut: max(eres.Cut, sres.Cut), Loops: eres.Loops}
	if res.Loops == nil {
		res.Loops = sres.Loops
	}
	res.Stats.Explored = eres.Stats.Explored
	res.Stats.Elapsed = time.Since(ps.start)
	ps.mu.Lock()
	first, byBug := ps.first, ps.byBug
	ps.mu.Unlock()
	seen := map[string]bool{}
	for _, r := range []*Result{eres, sres} {
		for _, b := range r.Bugs {
			if k := b.Outcome.Key(); !seen[k] {
				seen[k] = true
				if k == first {
					res.Bugs = append([]Bug{b}, res.Bugs...)
				} else {
					res.Bugs = append(res.Bugs, b)
				}
			}
		}
	}
	if !opts.All && len(res.Bugs) > 1 {
		res.Bugs = res.Bugs[:1]
	}
	res.Stats.Bugs = len(res.Bugs)
	res.Complete = eres.Complete && eerr == nil && !byBug
	if outer := ctx.Err(); outer != nil {
		return res, fmt.Errorf("exploration interrupted after %d executions: %w", res.Stats.Executions, outer)
	}
	// Stopping one side for the other's sake (a bug, the end of the
	// exhaustive side, a failure) is no failure of its own.
	for _, err := range []error{serr, eerr} {
		if err != nil && !errors.Is(err, context.Canceled) {
			return res, err
		}
	}
	return res, nil
}
