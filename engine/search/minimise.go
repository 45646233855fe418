package search

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/stdbg/stdbg/model/schedule"
)

// DefaultMinimiseExecutions is the budget of executions Minimise and Shrink
// spend when MinimiseOptions.MaxExecutions is 0.
const DefaultMinimiseExecutions = 20000

// MinimiseOptions bound a minimisation.
type MinimiseOptions struct {
	// MaxDepth is the depth bound of the search that found the bug: the
	// replay of the bug's schedule (and its default-policy tail, if the
	// schedule stops before the bug) is cut there, though never before the
	// end of the schedule itself; <= 0 means unbounded. Candidates are
	// bounded more tightly anyway, by the length of the best schedule so
	// far, so this only matters for the first replay.
	MaxDepth int
	// MaxExecutions is the budget: the number of executions minimisation
	// may run, the first replay of the bug and the final confirmation of
	// the result included (these two always run, so at least two are run).
	// 0 means DefaultMinimiseExecutions; negative is an error.
	MaxExecutions int64
	// Exhaustive runs, after shrinking, the exhaustive branch-and-bound
	// search that finds a smallest schedule and proves it minimal. False
	// means only shrinking, as Shrink does.
	Exhaustive bool
	// SearchExecutions is the number of executions the search that found
	// the bug ran (0 if not known): the reducing search of the proof is
	// first given about four times as many.
	SearchExecutions int64
	// Failures, if not nil, is what the search that found the bug kept
	// of its failing executions (Options.Failures): when that search was
	// the proof's own reducing search, the proof takes its result from
	// there instead of running it again.
	Failures *Failures
	// NoReduction proves minimality without the model's independence
	// (syncmodel.Dependent): by a branch-and-bound search over every
	// schedule, as a search with --reduction none explores, instead of one
	// schedule per Mazurkiewicz trace. Much slower; for programs whose
	// threads share memory the model does not see.
	NoReduction bool
	// Progress, if not nil, is called with the statistics so far after
	// an execution, at most ten times a second (Depth is the length of
	// the best schedule so far).
	Progress func(Stats)
}

// Minimised is the result of a minimisation: a schedule of the same bug
// (same Outcome.Key) that is no larger than the original, under the order
// "fewer transitions, then fewer preemptions".
type Minimised struct {
	// Schedule is the minimised failing schedule, with every transition up
	// to the failure explicit: Replay runs it to the failure without
	// using its default policy. It was confirmed by a last execution.
	Schedule schedule.Schedule
	// Outcome is how Schedule fails, as the confirming execution reported
	// it: same Key as the bug, possibly another Message or Step.
	Outcome Outcome
	// Original is the bug's schedule as it ran to the failure: the given
	// schedule, cut where the execution ended, or extended by the default
	// policy if it stopped before.
	Original schedule.Schedule
	// Length and OriginalLength are the numbers of transitions of Schedule
	// and Original.
	OriginalLength, Length int
	// Preemptions and OriginalPreemptions are their numbers of
	// preemptions: switches away from a thread that was still enabled (see
	// schedule.Schedule.Preemptions).
	OriginalPreemptions, Preemptions int
	// Proven reports that the exhaustive search ran to completion: no
	// schedule of the bug is shorter than Schedule, and none of the same
	// length has fewer preemptions. It is false after shrinking alone, and
	// when the budget or the context stopped the search first.
	Proven bool
	// LowerLength and LowerPreemptions are what was proven when Proven is
	// false, in the same order: no schedule of the bug is shorter than
	// LowerLength, and none of that length has fewer than
	// LowerPreemptions preemptions. When Proven they are Length and
	// Preemptions; 0 and 0 prove nothing.
	LowerLength, LowerPreemptions int
	// Unproven says why the result is not proven minimal ("" when it is):
	// "shrunk only" (Shrink), "budget spent", or a reason the reduction
	// could not be used for this program.
	Unproven string
	// Stats counts all the work; its States and Pruned come from the
	// exhaustive search only (Pruned counts the executions the bound cut
	// short), its MaxDepthHit counts the runs cut at the bound in both
	// phases.
	Stats Stats
	// ShrinkStats is the part of Stats spent shrinking (the first replay
	// of the bug included, the final confirmation not).
	ShrinkStats Stats
}

// ErrNotReproduced is wrapped by the error of Minimise and Shrink when the
// bug's schedule does not end with the bug (same Outcome.Key) when
// replayed: it diverges, ends otherwise or is cut at MaxDepth.
var ErrNotReproduced = errors.New("the schedule does not reproduce the bug")

// Minimise finds a smaller failing schedule of a bug, as a smaller schedule
// is an easier explanation: fewer transitions first, and among schedules of
// the same length, fewer preemptions. Two failures are the same bug if
// their Outcome.Key is the same: same kind, same place.
//
// It first replays bug.Schedule as Replay does (the given steps, then the
// default policy) and fails with ErrNotReproduced if that does not end with
// the bug. Without opts.Exhaustive it then shrinks the schedule as Shrink
// does, which is cheap and usually lands on or near a minimal schedule.
//
// With opts.Exhaustive it proves what it returns. Schedules that differ
// only in the order of independent operations (syncmodel.Dependent) run the
// same operations, so they have the same length and end the same way: the
// shortest schedules of the bug are schedules of its shortest Mazurkiewicz
// traces. Minimise first runs the reducing exhaustive search (NewDPOR, one
// schedule per trace, within opts.MaxDepth) with up to half the budget; if
// it completes, the shortest traces that end with the bug give the length,
// and among their schedules the one with the fewest preemptions is found
// by a shortest-path search over the orders of each trace's operations,
// which runs a few of them to learn where each thread is enabled (see
// linear). (When opts.Failures holds what the search that found the bug
// kept, and that search was this reducing search run to its end, its
// result is taken from there instead of running it again: see Failures.)
// When the search does not complete, Minimise shrinks, then
// searches the traces up to the length of the shrunk schedule, which
// proves its length as it goes. With opts.NoReduction, or for a program
// whose executions contradict the model (a schedule of a trace that does
// not end as the trace did: memory shared without thread operations), it
// runs instead a branch-and-bound depth-first search over all schedules,
// bounded by the shrunk schedule: only executions that can still end with
// the bug in fewer transitions, or in as many with fewer preemptions, are
// continued, and each time the bug is found the bound tightens to it. When
// a proof completes, the schedule is minimal and Proven is set; otherwise
// LowerLength and LowerPreemptions say what was proven, and Unproven why
// the proof stopped.
//
// Minimisation stops when its budget of executions (opts.MaxExecutions) is
// spent or ctx is done, and then returns the best schedule so far with
// Proven false: running out of budget is not an error. The result is always
// a schedule that an execution saw end with the bug, and a last execution
// replays it (with Replay) to confirm it; if that fails, the program is not
// deterministic under its schedule and the error wraps ErrNondeterministic.
//
// Everything is deterministic: the same program and bug give the same
// result, provided the budget is not cut by ctx. Errors are returned for an
// invalid argument, a bug that does not reproduce, a failing executor, a
// context already done before the first replay finished, and
// nondeterminism; the result is then nil.
func Minimise(ctx context.Context, ex Executor, bug Bug, opts MinimiseOptions) (*Minimised, error) {
	start := time.Now()
	switch {
	case ex == nil:
		return nil, errors.New("minimise: nil executor")
	case !bug.Outcome.Kind.IsBug():
		return nil, fmt.Errorf("minimise: the outcome %v is not a bug", bug.Outcome.Kind)
	case opts.MaxExecutions < 0:
		return nil, fmt.Errorf("minimise: negative execution budget %d", opts.MaxExecutions)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	budget := opts.MaxExecutions
	if budget == 0 {
		budget = DefaultMinimiseExecutions
	}
	key := bug.Outcome.Key()
	// One execution is kept for the confirmation.
	s := &shrinker{ctx: ctx, ex: ex, key: key, left: max(budget-1, 1), progress: opts.Progress, start: start}

	limit := opts.MaxDepth
	if limit > 0 && limit < len(bug.Schedule) {
		limit = len(bug.Schedule)
	}
	orig, err := s.execute(bug.Schedule, limit, false)
	switch {
	case errors.Is(err, errBudget):
		return nil, fmt.Errorf("minimise: replaying the bug: %w", ctx.Err())
	case err != nil:
		return nil, fmt.Errorf("minimise: replaying the bug: %w", err)
	case orig.out == nil:
		return nil, fmt.Errorf("minimise: %w: %q was cut after %d transitions (the depth bound) without failing",
			ErrNotReproduced, bug.Schedule, limit)
	case orig.out.Key() != key:
		return nil, fmt.Errorf("minimise: %w: %q ended with %v (%s) at %q, not %s",
			ErrNotReproduced, bug.Schedule, orig.out.Kind, orig.out.Message, orig.out.Where, key)
	}
	s.best = orig
	m := &Minimised{
		Original:            orig.sched,
		OriginalLength:      len(orig.sched),
		OriginalPreemptions: orig.pre,
	}
	shrinkStats := s.stats // the replay of the bug
	shrinkTime := time.Since(start)
	shrunk := false
	shrink := func() error {
		if shrunk {
			return nil
		}
		shrunk = true
		before, t0 := s.stats, time.Now()
		if err := s.shrink(); err != nil {
			return fmt.Errorf("minimise: shrinking: %w", err)
		}
		shrinkTime += time.Since(t0)
		shrinkStats.Executions += s.stats.Executions - before.Executions
		shrinkStats.Transitions += s.stats.Transitions - before.Transitions
		shrinkStats.MaxDepthHit += s.stats.MaxDepthHit - before.MaxDepthHit
		return nil
	}

	var pr *proof
	why := "" // what kept the reduction from proving
	switch {
	case !opts.Exhaustive || ctx.Err() != nil:
	case len(orig.sched) == 0:
		pr = &proof{best: orig} // the bug needs no transition at all
	default:
		bound := 0
		if opts.MaxDepth > 0 {
			bound = max(opts.MaxDepth, len(orig.sched))
		}
		var err error
		if pr, why, err = s.proveMinimal(bound, opts.SearchExecutions, opts.NoReduction, opts.Failures, shrink); err != nil {
			return nil, err
		}
	}
	if pr != nil && pr.best != nil && s.better(pr.best) {
		s.best = pr.best
	}
	if pr == nil && !shrunk {
		if err := shrink(); err != nil {
			return nil, err
		}
	}
	best, pre := s.best.sched, s.best.pre
	if pr != nil {
		m.LowerLength, m.LowerPreemptions = pr.length, pr.pre
		m.Proven = pr.length == len(best) && pr.pre == pre
	}
	switch {
	case m.Proven:
	case why != "":
		m.Unproven = "budget spent (the reduction does not fit this program: " + why + ")"
	case opts.Exhaustive:
		m.Unproven = "budget spent"
	default:
		m.Unproven = "shrunk only"
	}
	m.ShrinkStats = shrinkStats
	m.ShrinkStats.Elapsed = shrinkTime
	m.Stats = s.stats

	// Confirm with Replay itself.
	e, err := ex.Start()
	if err != nil {
		return nil, fmt.Errorf("minimise: confirming %v: starting the program: %w", best, err)
	}
	m.Stats.Executions++
	r, err := Replay(e, best, max(len(best), 1))
	if cerr := e.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("closing: %w", cerr)
	}
	if err != nil {
		return nil, fmt.Errorf("minimise: confirming %v: %w", best, err)
	}
	m.Stats.Transitions += int64(len(r.Executed))
	if r.Outcome == nil || r.Outcome.Key() != key || r.Leftover != 0 || !r.Executed.Equal(best) {
		got := "no ending"
		if r.Outcome != nil {
			got = fmt.Sprintf("%v at %q after %d transitions", r.Outcome.Kind, r.Outcome.Where, len(r.Executed))
		}
		return nil, fmt.Errorf("minimise: %v failed with %s once, but replaying it gave %s: %w",
			best, key, got, ErrNondeterministic)
	}
	m.Schedule = best
	m.Outcome = *r.Outcome
	m.Length = len(best)
	m.Preemptions = pre
	m.Stats.Elapsed = time.Since(start)
	return m, nil
}

// Shrink makes a failing schedule smaller without exploring: it replays the
// bug's schedule, then repeatedly tries smaller candidates derived from the
// best schedule so far, and keeps one when an execution of it (the given
// steps, then Replay's default policy) ends with the same Outcome.Key in
// fewer transitions, or as many with fewer preemptions. The candidates, in
// rounds until none is kept (a fixpoint) or the budget is spent:
//
//   - truncation: the prefix before each step where the schedule departs
//     from the default policy, so that the default policy takes over there;
//     all are run and the best kept, the shortest prefix winning ties;
//   - block trimming: removing a maximal run of steps of one thread, or its
//     end, or its beginning, larger cuts first;
//   - chunk removal: delta debugging's deletion of chunks of half the
//     length, a quarter, ... single steps;
//   - reordering at each preemption: continuing the preempted thread with
//     its next step or its next block moved back, postponing the preempted
//     block to its thread's next one, or swapping the blocks around the
//     switch.
//
// Candidates are run leniently: a step whose thread cannot run (it is
// blocked, absent or finished) is skipped, and a wrong data value is
// adjusted; the steps actually executed, run to the failure, become the new
// schedule, so every candidate kept is exact. Runs are cut at the length of
// the best schedule so far, and a candidate already run is not run again.
//
// Shrink is Minimise without its exhaustive phase: opts.Exhaustive is
// ignored, Proven is false, and the result and errors are as Minimise's.
func Shrink(ctx context.Context, ex Executor, bug Bug, opts MinimiseOptions) (*Minimised, error) {
	opts.Exhaustive = false
	return Minimise(ctx, ex, bug, opts)
}

// proveMinimal runs the proof. With the reduction, the reducing search of
// every trace within bound (<= 0: unbounded) first runs alone for about
// four times the executions of the search that found the bug
// (searchExecs): the usual case, where nothing needs shrinking, and one
// found, complete, in what that search kept (Failures); it goes on alone
// if its own estimate says it is nearly done (finishSmall). Then,
// shrinking first, it takes turns, in parts that double, with the reducing
// search of the traces up to the length of the shrunk schedule (a short bug
// in a long program); the first to complete proves. It
// returns nil when the budget ran out before one did, and, in why, what
// kept the reduction from proving (an execution that contradicted the
// model; the branch and bound goes on alone then).
func (s *shrinker) proveMinimal(bound int, searchExecs int64, noReduction bool, found *Failures, shrink func() error) (*proof, string, error) {
	part := max(4*searchExecs, 32)
	why := ""
	var full *proofSearch
	if !noReduction {
		// The search that found the bug may have been this proof's
		// first search, run to its end (Failures).
		full = found.proof(s.key, bound)
		done := full != nil
		var err error
		if full == nil {
			full = s.newProofSearch(bound)
			if done, err = s.advance(full, part); err != nil {
				return nil, "", s.stopped(err)
			}
		}
		if !done {
			if done, err = s.finishSmall(full, part); err != nil {
				return nil, "", s.stopped(err)
			}
		}
		if done {
			p, err := s.concluded(full)
			if err != nil || p.why == "" {
				return p, "", err
			}
			why, full = p.why, nil
		} else {
			s.adopt(full.rec)
		}
	}
	if err := shrink(); err != nil {
		return nil, why, err
	}
	var searches []*proofSearch
	if full != nil {
		if b := len(s.best.sched); bound <= 0 || b < bound {
			searches = append(searches, s.newProofSearch(b))
		}
		searches = append(searches, full)
	} else {
		searches = append(searches, s.newBranchAndBound())
	}
	for {
		for _, ps := range searches {
			if ps.dead {
				continue
			}
			done, err := s.advance(ps, part)
			if err != nil {
				return nil, why, s.stopped(err)
			}
			if !done {
				continue
			}
			p, err := s.concluded(ps)
			if err != nil || p.why == "" {
				return p, why, err
			}
			why = p.why
			live := false
			for _, q := range searches {
				q.dead = q.dead || q.rec != nil
				live = live || !q.dead
			}
			if !live {
				// The reduction cannot prove it: the branch and bound
				// goes on alone.
				searches = append(searches, s.newBranchAndBound())
			}
		}
		part *= 2
	}
}

// smallTree is the fraction of its tree the reducing search must estimate
// it has done after its first part for finishSmall to let it go on alone.
const smallTree = 1.0 / 8

// finishSmall lets the reducing search of every trace, which has run its
// first part of first executions without completing, go on alone when its
// own estimate (Progressive) says that it is nearly done: a small program
// whose bug the search met early (three threads in an ABBA deadlock, found
// in 2 executions of 160) is proven by that search in fewer executions
// than shrinking and a second, bounded search would take together.
//
// DPOR's estimate along its path can be far off early (it assumes that
// siblings weigh the same), so it is tested first: after the first part it
// must say at least smallTree, and after a second part as long as the
// first, it must have grown at least three quarters as fast as the work.
// Then the search runs twice the executions the estimate says are left,
// within 8*first in all. It reports whether ps completed; when it did not,
// at most 8*first executions were spent for nothing, and 2*first when the
// estimate failed its test.
func (s *shrinker) finishSmall(ps *proofSearch, first int64) (bool, error) {
	pr, ok := ps.rec.Strategy.(Progressive)
	if !ok {
		return false, nil
	}
	f1 := pr.Explored()
	if f1 < smallTree {
		return false, nil
	}
	before := s.stats.Executions
	if done, err := s.advance(ps, first); err != nil || done {
		return done, err
	}
	spent := first + s.stats.Executions - before
	f2 := pr.Explored()
	if f2 < f1*(1+0.75*float64(spent-first)/float64(first)) {
		return false, nil
	}
	n := min(2*int64(float64(spent)/f2-float64(spent))+1, 8*first-spent)
	if n <= 0 {
		return false, nil
	}
	return s.advance(ps, n)
}

// stopped turns the budget's end into no error.
func (s *shrinker) stopped(err error) error {
	if err == nil || errors.Is(err, errBudget) {
		return nil
	}
	return fmt.Errorf("minimise: exhaustive search: %w", err)
}

// concluded is conclude, with the budget's end no error.
func (s *shrinker) concluded(ps *proofSearch) (*proof, error) {
	p, err := s.conclude(ps)
	return p, s.stopped(err)
}
