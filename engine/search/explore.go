package search

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/stdbg/stdbg/model/schedule"
)

// Options bound and tune an exploration.
type Options struct {
	// MaxDepth is the number of transitions after which an execution is
	// cut (counted in Stats.MaxDepthHit, not a bug); <= 0 means unbounded.
	MaxDepth int
	// All keeps exploring after the first bug and reports each distinct
	// bug (by Outcome.Key) once, with the first schedule that showed it.
	All bool
	// MaxExecutions stops the exploration after that many executions; 0
	// means no limit.
	MaxExecutions int64
	// Progress, if non-nil, is called with the statistics so far, at most
	// every 100ms, and once more at the end.
	Progress func(Stats)
	// OnBug, if non-nil, is called with each bug as soon as it is found,
	// before the exploration goes on or returns, so that a front end can
	// show it even if it is killed later. A divided search (ExploreSplit)
	// calls it once per distinct bug, from any of its goroutines but never
	// from two at once.
	OnBug func(Bug)
	// Visited makes the search stateful: an execution that reaches a
	// program state already explored is abandoned, so loops that return
	// to where they were end. (When the depth bound cuts an execution,
	// the search begins again, pruning only at states explored at the
	// same or a lesser depth, so that the bound cuts no state's
	// continuations sooner than its shortest path: see errAnyDepthCut.)
	// The executions must implement Stateful. Sound with exhaustive DFS;
	// see docs/liveness.md for the other strategies.
	Visited bool
	// Graph records the state graph (Result.Graph); implies Visited.
	Graph bool
	// Livelock looks for non-progress cycles in the state graph once the
	// exploration is complete (see FindLivelock) and reports the first as
	// a Livelock bug; implies Graph.
	Livelock bool
	// Fairness is what Livelock (and an LTL check of the graph) takes a
	// fair cycle to be: weak (the default) or strong.
	Fairness Fairness
}

// Result is the outcome of an exploration.
type Result struct {
	// Bugs are the bugs found, in the order found: at most one unless
	// Options.All, and then one per distinct Outcome.Key.
	Bugs []Bug
	// Stats counts the work done.
	Stats Stats
	// Complete reports that the space within the bounds was exhausted: the
	// strategy ran out of executions and is exhaustive. It is false when the
	// search stopped at a bug, at MaxExecutions, on cancellation or on error.
	Complete bool
	// DepthLimited reports that some execution was cut at MaxDepth, so a
	// complete search is complete only up to that depth.
	DepthLimited bool
	// Cut is the number of transitions the execution under way had run
	// when the context stopped the search in its middle (0: it stopped
	// between executions).
	Cut int
	// Loops says, for the first execution cut by the depth bound, which
	// threads were looping and where, as its executor tells (Looper): why
	// the executions did not end.
	Loops []string
	// Graph is the state graph, with Options.Graph or Options.Livelock.
	Graph *Graph
}

// ErrNondeterministic is wrapped by Explore's error when replaying a prefix
// the strategy had already seen did not reproduce the earlier execution: the
// program behaves differently under the same schedule, because of
// nondeterminism stdbg does not control (time, input, unmonitored
// synchronization).
var ErrNondeterministic = errors.New("the program did not repeat itself under the same schedule (uncontrolled nondeterminism)")

// ErrCannotJudge is wrapped by Explore's error when an execution reached a
// state in which every thread the checker controls is blocked (a deadlock,
// or a leak at the end) while code that it does not see may still wake
// them (goroutines started before the check, channels fed or closed from
// outside it): the search says so and stops rather than report a bug
// that the model cannot back.
var ErrCannotJudge = errors.New("stdbg cannot judge this program")

// ErrStepCut is wrapped (with context.DeadlineExceeded) by an executor's
// error for a step that the end of the budget cut before it reached the
// next scheduling point: Explore stops there, the execution under way cut
// (Result.Cut), as when its context ends between two steps.
var ErrStepCut = errors.New("the budget ran out during a step")

// progressEvery is the least time between two calls of Options.Progress.
const progressEvery = 100 * time.Millisecond

// Explore runs executions of the program chosen by the strategy until the
// strategy has none left, a bug is found (unless opts.All), opts.MaxExecutions
// executions have run, ctx is cancelled or an error occurs.
//
// An execution ends when the executor reports an outcome (a bug if
// Outcome.Kind.IsBug), when it has run opts.MaxDepth transitions (it is cut),
// or when the strategy abandons it. Every execution is closed.
//
// Explore always returns a non-nil Result, with the statistics and bugs so
// far. When ctx is cancelled it stops between two transitions and returns the
// partial Result with an error wrapping ctx.Err() (so errors.Is(err,
// context.Canceled) holds). Executor failures are returned as errors of the
// form "execution N, step K: ...", K being the 1-based number of the step
// under way (0 before the first). The strategy is left in an unspecified
// state after an error; Init resets it.
func Explore(ctx context.Context, ex Executor, st Strategy, opts Options) (*Result, error) {
	return explore(ctx, ex, st, opts, opts.Stateful())
}

// explore is Explore, a stateful search pruning at any depth first when
// anyDepth is set.
func explore(ctx context.Context, ex Executor, st Strategy, opts Options, anyDepth bool) (*Result, error) {
	x := &explorer{
		res:      &Result{},
		ex:       ex,
		st:       st,
		opts:     opts,
		start:    time.Now(),
		anyDepth: anyDepth,
	}
	err := x.run(ctx)
	if errors.Is(err, errAnyDepthCut) {
		x = x.again()
		err = x.run(ctx)
	}
	x.res.Stats.Elapsed = time.Since(x.start)
	x.estimate()
	if opts.Progress != nil {
		opts.Progress(x.res.Stats)
	}
	return x.res, err
}

// explorer is the state of one call of Explore.
type explorer struct {
	res   *Result
	ex    Executor
	st    Strategy
	opts  Options
	start time.Time

	sf           *stateful       // Options.Visited: states explored
	anyDepth     bool            // a stateful search pruning at any depth (errAnyDepthCut)
	seen         map[string]bool // bug keys reported (Options.All)
	told         map[string]bool // bug keys told to OnBug by a search begun again (again)
	trace        []Event         // the current execution's transitions
	rep          Report          // reused: handing a pointer to End makes it escape
	lastProgress time.Time
}

func (x *explorer) run(ctx context.Context) error {
	switch {
	case x.ex == nil:
		return errors.New("explore: nil executor")
	case x.st == nil:
		return errors.New("explore: nil strategy")
	case x.opts.MaxExecutions < 0:
		return fmt.Errorf("explore: negative execution limit %d", x.opts.MaxExecutions)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	x.lastProgress = x.start
	if err := x.initStateful(); err != nil {
		return err
	}
	x.st.Init(Config{MaxDepth: x.opts.MaxDepth})
	done := ctx.Done()
	for {
		if err := ctx.Err(); err != nil {
			return x.interrupted(err)
		}
		prefix, ok := x.st.Begin()
		if !ok {
			x.res.Complete = x.st.Exhausted()
			if x.anyDepth && x.sf.graph != nil {
				// (Before the livelock detection, which starts its
				// cycles where they are least deep.)
				x.sf.graph.leastDepths()
			}
			x.livelock()
			return nil
		}
		if x.opts.MaxExecutions > 0 && x.res.Stats.Executions >= x.opts.MaxExecutions {
			return nil
		}
		stop, err := x.execute(prefix, done)
		if err != nil {
			if errors.Is(err, errInterrupted) {
				x.res.Cut = len(x.trace)
				return x.interrupted(ctx.Err())
			}
			if errors.Is(err, ErrStepCut) {
				x.res.Cut = len(x.trace)
				return x.interrupted(err)
			}
			return err
		}
		if stop {
			return nil
		}
		x.progress()
	}
}

func (x *explorer) interrupted(err error) error {
	return fmt.Errorf("exploration interrupted after %d executions: %w", x.res.Stats.Executions, err)
}

// errInterrupted is returned by execute when ctx was cancelled.
var errInterrupted = errors.New("interrupted")

// execute runs one execution: the prefix, then the strategy's choices. It
// reports whether the exploration must stop (a bug was found and not
// Options.All).
func (x *explorer) execute(prefix schedule.Schedule, done <-chan struct{}) (stop bool, err error) {
	stats := &x.res.Stats
	n := stats.Executions + 1
	var e Execution
	if ps, ok := x.ex.(PrefixStarter); ok {
		e, err = ps.StartPrefix(prefix)
	} else {
		e, err = x.ex.Start()
	}
	if err != nil {
		x.trace = x.trace[:0]
		return true, fmt.Errorf("execution %d, step 0: starting the program: %w", n, err)
	}
	stats.Executions = n
	if n == 1 {
		stats.States++ // the initial scheduling point
	}
	defer func() {
		if cerr := e.Close(); cerr != nil && err == nil {
			stop, err = true, fmt.Errorf("execution %d: closing: %w", n, cerr)
		}
	}()

	maxDepth := x.opts.MaxDepth
	x.trace = x.trace[:0]
	x.rep = Report{}
	rep := &x.rep
	prev := 0
	revisit := false // abandoned at a state already explored
	if x.sf != nil {
		x.sf.reset()
	}
	for k := 0; ; k++ {
		if o := e.Ended(); o != nil {
			if k < len(prefix) {
				// The strategy saw this point as a running one before.
				return true, fmt.Errorf("execution %d, step %d: replaying an earlier execution: it ended before this step (%v: %s): %w",
					n, k+1, o.Kind, o.Message, ErrNondeterministic)
			}
			rep.Outcome = o
			if x.sf != nil && !o.Redundant {
				x.sf.ended(o, k)
			}
			rep.Final = e.Threads()
			break
		}
		if x.sf != nil {
			prune, err := x.visit(e, k, len(prefix), n)
			if err != nil {
				return true, err
			}
			if prune {
				rep.Pruned, revisit = true, true
				break
			}
		}
		if maxDepth > 0 && k >= maxDepth {
			if x.anyDepth {
				return true, errAnyDepthCut
			}
			rep.DepthLimited = true
			if l, ok := e.(Looper); ok && x.res.Loops == nil {
				x.res.Loops = l.Loops()
			}
			if x.sf != nil {
				x.sf.cut()
			}
			rep.Final = e.Threads()
			break
		}
		select {
		case <-done:
			return true, errInterrupted
		default:
		}
		ts := e.Threads()
		var s schedule.Step
		if k < len(prefix) {
			s = prefix[k]
		} else {
			if firstEnabled(ts) < 0 {
				return true, fmt.Errorf("execution %d, %w", n, stuckError(k+1))
			}
			var ok bool
			if s, ok = x.st.Next(Point{Depth: k, Threads: ts, Prev: prev}); !ok {
				rep.Pruned = true
				rep.Final = ts
				break
			}
			stats.States++
		}
		i, m := fit(ts, s)
		if m != fits {
			if firstEnabled(ts) < 0 {
				return true, fmt.Errorf("execution %d, %w", n, stuckError(k+1))
			}
			if k < len(prefix) {
				return true, fmt.Errorf("execution %d, step %d: replaying an earlier execution: %s: %w",
					n, k+1, m.explain(ts, i, s), ErrNondeterministic)
			}
			if k == len(prefix) && k > 0 {
				// The strategy returned to a point it met in an earlier
				// execution, and the program is not where it was then.
				return true, fmt.Errorf("execution %d, step %d: returning to an earlier scheduling point: %s: %w",
					n, k+1, m.explain(ts, i, s), ErrNondeterministic)
			}
			return true, fmt.Errorf("execution %d, step %d: the strategy chose an impossible step %v: %s",
				n, k+1, s, m.explain(ts, i, s))
		}
		// (The event is written in place: an operation is big.)
		if n := len(x.trace); n < cap(x.trace) {
			x.trace = x.trace[:n+1]
		} else {
			x.trace = append(x.trace, Event{})
		}
		ev := &x.trace[len(x.trace)-1]
		ev.Step, ev.Op = s, ts[i].Op
		if x.sf != nil {
			x.sf.step(s, ts[i].Op)
		}
		if err := e.Step(s); err != nil {
			return true, fmt.Errorf("execution %d, step %d (thread %v): %w", n, k+1, s, err)
		}
		stats.Transitions++
		prev = s.Thread
		if stats.Transitions&255 == 0 {
			stats.Depth = k + 1 // the execution under way, for progress displays
			x.progress()
		}
	}

	stats.Depth = len(x.trace)
	switch {
	case rep.DepthLimited:
		stats.MaxDepthHit++
		x.res.DepthLimited = true
	case rep.Pruned && !revisit:
		stats.Pruned++
	}
	rep.Trace = x.trace
	if o := rep.Outcome; o != nil && o.Kind.IsBug() {
		stop = x.bug(o, x.trace)
	}
	x.st.End(rep)
	x.progress()
	return stop, nil
}

// bug records a bug found by an execution with the given trace and reports
// whether the exploration stops.
func (x *explorer) bug(o *Outcome, trace []Event) bool {
	if x.opts.All {
		key := o.Key()
		if x.seen[key] {
			return false
		}
		if x.seen == nil {
			x.seen = make(map[string]bool)
		}
		x.seen[key] = true
	}
	s := make(schedule.Schedule, len(trace))
	for i := range trace {
		s[i] = trace[i].Step
	}
	b := Bug{Schedule: s, Outcome: *o}
	if a, ok := x.st.(Attributed); ok {
		b.By = a.By()
	}
	x.res.Bugs = append(x.res.Bugs, b)
	x.res.Stats.Bugs = len(x.res.Bugs)
	if x.opts.OnBug != nil && !x.told[o.Key()] {
		x.opts.OnBug(x.res.Bugs[len(x.res.Bugs)-1])
	}
	return !x.opts.All
}

// A stateful search (Options.Visited) prunes an execution at a state
// explored before. Pruning only where the state was explored at the same
// or a lesser depth lets the depth bound cut each state's continuations
// no sooner than on the shortest path to it, but explores every state met
// again at a lesser depth again, with all that follows it: C4's
// starvation check ran 5,830 executions for 1,134 states that way, 1,038
// when pruning at any depth. With a bound that never cuts, the two
// explore the same states and transitions (and find the same bugs first:
// every execution the second prunes goes on, from the state where it is
// pruned, as one that ran before it did), so Explore prunes at any depth
// first, and at the first execution the bound cuts begins again with the
// depth-aware pruning, whose result it returns. The state graph's depths
// are then made the least ones (Graph.leastDepths), as the depth-aware
// search records them.

// errAnyDepthCut stops a search pruning at any depth at the first
// execution the depth bound cuts.
var errAnyDepthCut = errors.New("the depth bound cut an execution of a search pruning at any depth")

// again returns the explorer that begins the search of x again, pruning
// only at a depth no greater than the state's: the bugs x told OnBug of
// are not told again.
func (x *explorer) again() *explorer {
	told := x.told
	if told == nil {
		told = map[string]bool{}
	}
	for _, b := range x.res.Bugs {
		told[b.Outcome.Key()] = true
	}
	return &explorer{res: &Result{}, ex: x.ex, st: x.st, opts: x.opts, start: x.start, told: told}
}

// progress calls Options.Progress if it is due.
func (x *explorer) progress() {
	if x.opts.Progress == nil {
		return
	}
	now := time.Now()
	if now.Sub(x.lastProgress) < progressEvery {
		return
	}
	x.lastProgress = now
	x.res.Stats.Elapsed = now.Sub(x.start)
	x.estimate()
	x.opts.Progress(x.res.Stats)
}

// estimate puts the strategy's estimate of the search done in the
// statistics.
func (x *explorer) estimate() {
	if pr, ok := x.st.(Progressive); ok {
		x.res.Stats.Explored = pr.Explored()
	}
}
