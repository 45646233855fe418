package search

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stdbg/stdbg/model/schedule"
)

// Split divides one exploration among workers of this process and among
// shards (processes, perhaps on other machines).
type Split struct {
	// Workers is the number of executions run at once in this process,
	// each by its own executor; < 1 means 1.
	Workers int
	// Shard and Shards select the part of the search this process runs:
	// shard Shard (0 <= Shard < Shards) of Shards. Shards <= 1 means the
	// whole search.
	Shard, Shards int
}

// NewExecutor makes the executor of one worker (its own program under
// test). It is called on the worker's goroutine, which stays locked to its
// OS thread for as long as the executor is used; close releases it.
type NewExecutor func(worker int) (ex Executor, close func(), err error)

// ExploreSplit explores like Explore, with a fresh strategy from
// newStrategy, but divides the work: it first runs the strategy with a small
// depth bound (the split depth, doubled from 1 until there are enough
// parts, at least 16 per worker, or 64 per shard when sharded) to cut the
// search tree into subtrees, one per prefix of that length; then the
// workers explore the subtrees of this shard, each with a fresh strategy
// under the prefix (Under), taking the next subtree when done.
//
// The parts are numbered in the order the strategy met them, which is the
// same in every process exploring the same program with the same strategy
// and bounds: part i belongs to shard i mod Shards, so the shards are
// disjoint and together cover the search. Executions that end before the
// split depth are parts of their own.
//
// With DFS (reduction none) the subtrees partition the tree: the workers
// and shards together run exactly the executions one Explore runs (Stats.
// Executions counts them; the runs cut at the split depth to find the parts
// are counted in Stats.Pruned), and find the same bugs. With DPOR the
// strategy is sound under the split depth, so every trace has a prefix
// equivalent to one of the parts, and each subtree is explored with DPOR
// from the state after its prefix: the union explores every trace, but two
// parts with equivalent prefixes explore the same traces twice, so the
// total may exceed what one DPOR runs.
//
// The Result merges the workers': bugs in part order (de-duplicated by
// Outcome.Key with Options.All), statistics summed, Complete when every
// part of this shard was exhausted. Without Options.All the first bug stops
// every worker. MaxExecutions bounds the executions of all the parts
// together (those that found the parts are not counted).
func ExploreSplit(ctx context.Context, newEx NewExecutor, newStrategy func() Strategy, opts Options, sp Split) (*Result, error) {
	if sp.Workers < 1 {
		sp.Workers = 1
	}
	if sp.Shards < 1 {
		sp.Shards, sp.Shard = 1, 0
	}
	if sp.Shard < 0 || sp.Shard >= sp.Shards {
		return &Result{}, fmt.Errorf("explore: shard %d of %d does not exist", sp.Shard, sp.Shards)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	start := time.Now()
	outer := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sx := &splitter{opts: opts, start: start, newStrategy: newStrategy, shard: sp.Shard, shards: sp.Shards, stop: cancel}

	// Worker 0 finds the parts with its own executor, then works on them.
	parts := make(chan int)
	var wg sync.WaitGroup
	var errMu sync.Mutex
	var firstErr error
	fail := func(err error) {
		errMu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		errMu.Unlock()
		cancel()
	}
	worker := func(ex Executor) {
		for i := range parts {
			if err := sx.explorePart(ctx, ex, i); err != nil {
				fail(err)
			}
		}
	}
	target := 16 * sp.Workers
	if sp.Shards > 1 {
		target = 64 * sp.Shards
	}
	split := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		ex, closeEx, err := newEx(0)
		if err != nil {
			split <- err
			return
		}
		defer closeEx()
		if err := sx.findParts(ctx, ex, target); err != nil {
			split <- err
			return
		}
		split <- nil
		worker(ex)
	}()
	if err := <-split; err != nil {
		close(parts)
		wg.Wait()
		return sx.result(), err
	}
	for w := 1; w < sp.Workers && w < len(sx.parts); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ex, closeEx, err := newEx(w)
			if err != nil {
				fail(fmt.Errorf("starting worker %d: %w", w+1, err))
				return
			}
			defer closeEx()
			worker(ex)
		}()
	}
feed:
	for i := range sx.parts {
		if i%sp.Shards != sp.Shard {
			continue
		}
		if sx.parts[i].done {
			if sx.opts.MaxExecutions > 0 && sx.started.Add(1) > sx.opts.MaxExecutions {
				sx.limitHit.Store(true)
				break
			}
			sx.record(i, sx.parts[i].res)
			if sx.stopped() {
				break
			}
			continue
		}
		select {
		case parts <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(parts)
	wg.Wait()
	res := sx.result()
	if firstErr != nil {
		return res, firstErr
	}
	if err := outer.Err(); err != nil {
		return res, fmt.Errorf("exploration interrupted after %d executions: %w", res.Stats.Executions, err)
	}
	return res, nil
}

// part is a subtree of the search: the executions that start with prefix.
// An execution that ended before the split depth is a part of its own,
// done from the start.
type part struct {
	prefix schedule.Schedule
	done   bool
	res    *Result // for a done part: that execution's bug, if any
}

type splitter struct {
	opts        Options
	start       time.Time
	newStrategy func() Strategy
	parts       []part
	splitDepth  int
	shard       int
	shards      int
	stop        context.CancelFunc // stops the workers at the first bug (without All)

	started  atomic.Int64 // executions started in the parts (Options.MaxExecutions)
	limitHit atomic.Bool  // Options.MaxExecutions reached: stop everything

	bugMu    sync.Mutex      // serialises Options.OnBug
	bugsSeen map[string]bool // the bugs passed to it

	mu       sync.Mutex
	results  map[int]*Result
	stats    Stats // of the runs that found the parts
	found    bool  // a bug was recorded (stops everything without All)
	progress time.Time
}

// findParts runs the strategy with increasing depth bounds until the runs
// cut at that depth are at least target parts, or nothing was cut.
func (sx *splitter) findParts(ctx context.Context, ex Executor, target int) error {
	for depth := 1; ; depth *= 2 {
		if sx.opts.MaxDepth > 0 && depth >= sx.opts.MaxDepth {
			depth = sx.opts.MaxDepth
		}
		rec := &partRecorder{Strategy: sx.newStrategy(), onBug: sx.onBug}
		res, err := Explore(ctx, ex, rec, Options{MaxDepth: depth, All: true})
		if err != nil {
			return fmt.Errorf("dividing the search at depth %d: %w", depth, err)
		}
		sx.mu.Lock()
		sx.stats.Pruned += res.Stats.Executions
		sx.stats.Transitions += res.Stats.Transitions
		sx.mu.Unlock()
		cut := 0
		for _, p := range rec.parts {
			if !p.done {
				cut++
			}
		}
		if cut >= target || cut == 0 || sx.opts.MaxDepth > 0 && depth >= sx.opts.MaxDepth {
			sx.parts = rec.parts
			sx.splitDepth = depth
			if sx.opts.MaxDepth > 0 && depth >= sx.opts.MaxDepth {
				// The bound itself: every part is one execution, cut.
				for i := range sx.parts {
					if !sx.parts[i].done {
						sx.parts[i].done = true
						sx.parts[i].res = &Result{Stats: Stats{Executions: 1, MaxDepthHit: 1}, Complete: true, DepthLimited: true}
					}
				}
				cut = 0
			}
			// Executions that ended (or were cut by the bound itself)
			// count as executions where their part is owned.
			sx.mu.Lock()
			sx.stats.Pruned -= int64(len(rec.parts) - cut)
			sx.stats.States += res.Stats.States // the scheduling points above the split depth
			sx.mu.Unlock()
			return nil
		}
	}
}

// partRecorder records the executions of a strategy as parts.
type partRecorder struct {
	Strategy
	parts []part
	onBug func(Bug)
}

func (r *partRecorder) End(rep *Report) {
	s := make(schedule.Schedule, len(rep.Trace))
	for i := range rep.Trace {
		s[i] = rep.Trace[i].Step
	}
	switch {
	case rep.Pruned:
		// Explored elsewhere: not a part.
	case rep.DepthLimited:
		r.parts = append(r.parts, part{prefix: s})
	default:
		res := &Result{Stats: Stats{Executions: 1}, Complete: true} // transitions counted with the splitting runs
		if o := rep.Outcome; o != nil && o.Kind.IsBug() {
			res.Bugs = []Bug{{Schedule: s, Outcome: *o}}
			res.Stats.Bugs = 1
			r.onBug(res.Bugs[0])
		}
		r.parts = append(r.parts, part{prefix: s, done: true, res: res})
	}
	r.Strategy.End(rep)
}

// explorePart explores the subtree of part i.
func (sx *splitter) explorePart(ctx context.Context, ex Executor, i int) error {
	if sx.stopped() || ctx.Err() != nil {
		return nil
	}
	p := sx.parts[i]
	opts := sx.opts
	opts.Progress = nil
	opts.MaxExecutions = 0 // counted across the parts: see limited
	opts.Failures = nil    // one part's traces, run at once with others
	if opts.MaxDepth > 0 {
		opts.MaxDepth -= len(p.prefix)
	}
	if sx.opts.Progress != nil {
		opts.Progress = func(s Stats) { sx.report(i, s) }
	}
	opts.OnBug = func(b Bug) {
		b.Schedule = append(append(schedule.Schedule{}, p.prefix...), b.Schedule...)
		b.Outcome.Step += len(p.prefix)
		sx.onBug(b)
	}
	var pex Executor = Under(ex, p.prefix)
	if sx.opts.MaxExecutions > 0 {
		pex = &limited{Executor: pex, sx: sx}
	}
	res, err := Explore(ctx, pex, sx.newStrategy(), opts)
	for k := range res.Bugs {
		res.Bugs[k].Schedule = append(append(schedule.Schedule{}, p.prefix...), res.Bugs[k].Schedule...)
		res.Bugs[k].Outcome.Step += len(p.prefix)
	}
	res.Stats.Transitions += res.Stats.Executions * int64(len(p.prefix))
	sx.record(i, res)
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("exploring below %v: %w", p.prefix, err)
	}
	return nil
}

// onBug passes a bug found in any part on to Options.OnBug, once per
// distinct bug and one call at a time.
func (sx *splitter) onBug(b Bug) {
	if sx.opts.OnBug == nil {
		return
	}
	sx.bugMu.Lock()
	defer sx.bugMu.Unlock()
	k := b.Outcome.Key()
	if sx.bugsSeen[k] {
		return
	}
	if sx.bugsSeen == nil {
		sx.bugsSeen = make(map[string]bool)
	}
	sx.bugsSeen[k] = true
	sx.opts.OnBug(b)
}

// record keeps the result of part i.
func (sx *splitter) record(i int, res *Result) {
	sx.mu.Lock()
	defer sx.mu.Unlock()
	if sx.results == nil {
		sx.results = make(map[int]*Result)
	}
	sx.results[i] = res
	if len(res.Bugs) > 0 {
		sx.found = true
		if !sx.opts.All {
			sx.stop()
		}
	}
	sx.progressLocked(true)
}

// report passes a running part's statistics on to Options.Progress.
func (sx *splitter) report(i int, s Stats) {
	sx.mu.Lock()
	defer sx.mu.Unlock()
	if sx.results == nil {
		sx.results = make(map[int]*Result)
	}
	if r := sx.results[i]; r == nil || !r.Complete {
		sx.results[i] = &Result{Stats: s}
	}
	sx.progressLocked(false)
}

func (sx *splitter) progressLocked(force bool) {
	if sx.opts.Progress == nil {
		return
	}
	now := time.Now()
	if !force && now.Sub(sx.progress) < progressEvery {
		return
	}
	sx.progress = now
	s := sx.sumLocked()
	s.Elapsed = now.Sub(sx.start)
	sx.opts.Progress(s)
}

func (sx *splitter) sumLocked() Stats {
	s := sx.stats
	for _, r := range sx.results {
		rs := r.Stats
		rs.Bugs, rs.Elapsed = len(r.Bugs), 0
		s = s.Add(rs)
	}
	s.Explored = sx.exploredLocked()
	return s
}

// exploredLocked estimates the fraction of this shard's parts explored,
// taking the parts to be of one size: those done count whole, those under
// way by their own estimate.
func (sx *splitter) exploredLocked() float64 {
	n, done := 0, 0.0
	for i := range sx.parts {
		if i%sx.shards != sx.shard {
			continue
		}
		n++
		switch r := sx.results[i]; {
		case sx.parts[i].done || r != nil && r.Complete:
			done++
		case r != nil:
			done += r.Stats.Explored
		}
	}
	if n == 0 {
		return 0
	}
	return done / float64(n)
}

// stopped reports that a bug ends the exploration (without All).
func (sx *splitter) stopped() bool {
	if sx.limitHit.Load() {
		return true
	}
	sx.mu.Lock()
	defer sx.mu.Unlock()
	return sx.found && !sx.opts.All
}

// limited counts the executions of every part against
// Options.MaxExecutions, and stops the whole search when they reach it.
type limited struct {
	Executor
	sx *splitter
}

var errLimit = errors.New("execution limit reached")

func (l *limited) Start() (Execution, error) {
	if l.sx.started.Add(1) > l.sx.opts.MaxExecutions {
		l.sx.limitHit.Store(true)
		l.sx.stop()
		return nil, errLimit
	}
	return l.Executor.Start()
}

// result merges what the parts found.
func (sx *splitter) result() *Result {
	sx.mu.Lock()
	defer sx.mu.Unlock()
	res := &Result{Stats: sx.sumLocked(), Complete: sx.parts != nil}
	ids := make([]int, 0, len(sx.results))
	for i := range sx.results {
		ids = append(ids, i)
	}
	sort.Ints(ids)
	seen := map[string]bool{}
	owned := 0
	for _, i := range ids {
		r := sx.results[i]
		owned++
		res.Complete = res.Complete && r.Complete
		res.DepthLimited = res.DepthLimited || r.DepthLimited
		if res.Loops == nil {
			res.Loops = r.Loops
		}
		res.Cut = max(res.Cut, r.Cut)
		for _, b := range r.Bugs {
			if k := b.Outcome.Key(); !seen[k] {
				seen[k] = true
				res.Bugs = append(res.Bugs, b)
			}
		}
	}
	if !sx.opts.All && len(res.Bugs) > 1 {
		res.Bugs = res.Bugs[:1]
	}
	if sx.found && !sx.opts.All {
		res.Complete = false
	}
	n := 0
	for i := range sx.parts {
		if i%sx.shards == sx.shard {
			n++
		}
	}
	if owned < n {
		res.Complete = false
	}
	res.Stats.Bugs = len(res.Bugs)
	res.Stats.Elapsed = time.Since(sx.start)
	return res
}
