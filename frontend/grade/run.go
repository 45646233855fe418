package grade

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/frontend/session"
	"github.com/stdbg/stdbg/internal/procgroup"
	"github.com/stdbg/stdbg/target/goinstr"
)

// This file runs the searches of a submission's checks: one search for the
// checks that build the same program and search it the same way (a no-bug
// check and a test check of one harness see the same schedules; each
// counts the bugs of its own classes), each bounded by what it explores,
// never by the machine's speed.

// group is the checks that share one search.
type group struct {
	checks []int // indices into Assignment.Checks, in order
	race   bool  // built for data races (a race check among them)
	// plain, for a Go group without race checks, is the race group of
	// the same program whose search serves it when that search found no
	// data race (see reuse).
	plain *group
	run   *outcome
}

// outcome is what one search found, or why it could not run.
type outcome struct {
	b     *built
	found *session.Found
	l     Limits
	// first reports a search that stopped at its first bug, which
	// decided every check that shares it (see decisive).
	first bool
	// status and message, when status is not "", say why the search
	// gave no verdict (the program does not build, could not start, ran
	// out of its time bound, ran no schedule); every check of the group
	// then gets them.
	status, message string
}

// groupKey is what makes two checks' searches the same: the program
// (harness, arguments, tests, race build), the kind of search (stateful
// for ltl and progress, with the formula) and the limits.
func (g *grader) groupKey(c *Check) string {
	kind := ""
	if c.Kind == KindLTL || c.Kind == KindProgress {
		kind = c.Kind + ":" + c.Formula
	}
	return fmt.Sprintf("%q|%s|%q|%v|%s|%+v", c.Harness, c.Run, c.Args, c.wantsRace(), kind, c.limits(g.a))
}

// groups partitions the assignment's checks into searches, in the order
// they run: for Go, a race search before the plain search of the same
// program, which it may serve.
func (g *grader) groups() []*group {
	byKey := map[string]*group{}
	var out []*group
	for i := range g.a.Checks {
		c := &g.a.Checks[i]
		k := g.groupKey(c)
		gr, ok := byKey[k]
		if !ok {
			gr = &group{race: c.wantsRace()}
			byKey[k] = gr
			out = append(out, gr)
		}
		gr.checks = append(gr.checks, i)
	}
	if g.a.Language != "go" {
		return out
	}
	// A plain search of a Go program is served by the race search of the
	// same program when that one found no data race: the race build has
	// the same scheduling points, and with no race no execution of it
	// ended early, so it ran exactly the executions the plain one would.
	for _, gr := range out {
		if gr.race {
			continue
		}
		c := &g.a.Checks[gr.checks[0]]
		if c.Kind == KindLTL || c.Kind == KindProgress {
			continue
		}
		twin := *c
		twin.Bugs = []string{"race"}
		twin.Kind = KindNoBug
		if r, ok := byKey[g.groupKey(&twin)]; ok {
			gr.plain = r
		}
	}
	var races, rest []*group
	for _, gr := range out {
		if gr.race {
			races = append(races, gr)
		} else {
			rest = append(rest, gr)
		}
	}
	return append(races, rest...)
}

// checks runs every check of the assignment and returns their results in
// the assignment's order.
func (g *grader) checks(ctx context.Context) []CheckResult {
	results := make([]CheckResult, len(g.a.Checks))
	done := make([]bool, len(g.a.Checks))
	for _, gr := range g.groups() {
		if ctx.Err() != nil || g.broken != nil {
			break
		}
		start := time.Now()
		first := &g.a.Checks[gr.checks[0]]
		if g.log != nil {
			for _, i := range gr.checks {
				g.log(fmt.Sprintf("check %d/%d: %s", i+1, len(g.a.Checks), g.a.Checks[i].Name))
			}
		}
		if r := gr.plain; r != nil && r.run != nil && r.run.found != nil && r.run.status == "" && !r.run.first && !foundRace(r.run.found) {
			gr.run = r.run
		} else {
			gr.run = g.search(ctx, first)
		}
		secs := time.Since(start).Seconds() / float64(len(gr.checks))
		for _, i := range gr.checks {
			c := &g.a.Checks[i]
			cr := g.verdict(c, gr.run)
			cr.Name, cr.Kind, cr.MaxScore, cr.Visibility = c.Name, c.Kind, c.Points, c.Visibility
			cr.Seconds = secs
			results[i], done[i] = cr, true
		}
	}
	var out []CheckResult
	for i, ok := range done {
		if !ok {
			break // stopped: the checks graded so far
		}
		out = append(out, results[i])
	}
	return out
}

// foundRace reports a data race among the bugs a search found.
func foundRace(f *session.Found) bool {
	for _, b := range f.Search.Bugs {
		if b.Outcome.Kind == search.DataRace {
			return true
		}
	}
	return false
}

// search runs the search of check c (and of the checks that share it).
func (g *grader) search(ctx context.Context, c *Check) *outcome {
	l := c.limits(g.a)
	out := &outcome{l: l}
	b := g.build(c)
	out.b = b
	if b.err != nil {
		var ie *goinstr.InstallError
		if errors.As(b.err, &ie) {
			g.broken = ie
		}
		msg := b.err.Error()
		var ue *session.UsageError
		if errors.As(b.err, &ue) {
			msg = strings.ReplaceAll(msg, b.dir+"/", "")
		}
		out.status, out.message = StatusNotBuilt, "your program does not build:\n"+msg
		return out
	}
	if decisive := g.decisive(c); decisive != nil {
		// Every check of this search loses all its points at the first
		// bug of some kinds: search up to the first bug, and stop there
		// when it is one of them. The same search in the same order as
		// the whole one, cut at a point that depends on the program
		// alone, so the grade is the same on any machine; it saves the
		// rest of the search, which for a racy Go program runs a fresh
		// process per execution. A first bug of another kind (a
		// deadlock in a search for data races) leaves the checks
		// undecided: the whole search runs then. A search that found no
		// bug explored as much as the whole one would have.
		first := g.searchFrom(ctx, c, b, l, false)
		if first.status != "" || len(first.found.Search.Bugs) == 0 {
			return first
		}
		if decisive(first.found.Search.Bugs[0].Outcome.Kind.String()) {
			first.first = true
			return first
		}
	}
	return g.searchFrom(ctx, c, b, l, true)
}

// searchFrom runs the search of check c on build b: inside the target,
// and from here when the search inside the target gave up; all goes on
// after the first bug.
func (g *grader) searchFrom(ctx context.Context, c *Check, b *built, l Limits, all bool) *outcome {
	out, fellBack := g.find(ctx, c, b, &outcome{l: l, b: b}, true, all)
	if fellBack && ctx.Err() == nil {
		// The search inside the target gave up on it and went on with
		// a fresh process per execution, hundreds of times slower: a
		// Go program built with the race detector whose leak or panic,
		// found inside the target, does not happen the same way in a
		// fresh process. Search it from here instead, in one process
		// reused from execution to execution (it repeats itself there),
		// which gives the same result in a few seconds.
		out, _ = g.find(ctx, c, b, &outcome{l: l, b: b}, false, all)
	}
	return out
}

// decisive returns, when every check that shares c's search loses all its
// points at one bug of a kind they all count (no partial credit), whether
// a bug of a kind does that to each of them; nil when no kind of bug of
// the program decides them all, or some check always needs the whole
// search (partial credit, or an ltl or progress check, whose verdict is
// on the whole state graph).
func (g *grader) decisive(c *Check) func(kind string) bool {
	key := g.groupKey(c)
	var same []*Check
	for i := range g.a.Checks {
		o := &g.a.Checks[i]
		if g.groupKey(o) != key {
			continue
		}
		if len(o.Deduct) > 0 || o.Kind == KindLTL || o.Kind == KindProgress {
			return nil
		}
		same = append(same, o)
	}
	all := func(kind string) bool {
		for _, o := range same {
			if !o.counts(kind) {
				return false
			}
		}
		return true
	}
	// Worth it only when a bug of the program's own (not an endless
	// loop, which fails every check) decides them all: otherwise the
	// first bug would rarely end the search, and the part searched up
	// to it would be searched again.
	for _, kinds := range classes {
		for _, k := range kinds {
			if all(k) {
				return all
			}
		}
	}
	return nil
}

// freshFallback is how a session says that its search goes on with a
// fresh process per execution (session's inTargetFallback).
const freshFallback = "fresh process per execution"

// find runs the search of check c on build b, inside the target when
// inTarget allows; fellBack reports a search inside the target stopped
// because it was going on with a fresh process per execution.
func (g *grader) find(ctx context.Context, c *Check, b *built, out *outcome, inTarget, all bool) (_ *outcome, fellBack bool) {
	l := out.l
	race := c.wantsRace() && b.t.Go
	stateful := c.Kind == KindLTL || c.Kind == KindProgress
	meter := newCPUMeter()
	// A Go program searched inside the target runs its executions in a
	// process that search starts: the session's first process would only
	// wait (a tenth of a CPU second to start a race-detector build), so
	// it is started only if the session needs it (to name the program's
	// code in a bug's report).
	deferred := b.t.Go && inTarget
	s, err := session.Start(b.t, session.Options{
		Stdout: io.Discard, Stderr: io.Discard, FastExit: true, KeepThreads: true,
		TransitionTimeout: time.Duration(l.Step), StartTimeout: time.Duration(l.Step) + 10*time.Second,
		Races: c.wantsRace(), SpuriousWakeups: true, State: stateful,
		Dir: b.run, Wrap: g.sb.conf.wrap(l, race), Library: b.lib, DeferStart: deferred,
	})
	if err != nil {
		out.status, out.message = StatusError, "your program could not be started: "+strings.ReplaceAll(err.Error(), b.dir+"/", "")
		return out, false
	}
	// The time bounds: a safety net for programs that run for ever, not
	// the search's bound (its executions are). The CPU time the check
	// uses (the grader's and the program's processes') is bounded by
	// Budget, which a busy machine does not reach sooner, and the time it
	// spends waiting without using the CPU (a program that sleeps or
	// blocks) by Wall (idleWall); the wall clock itself only by
	// hardWallFactor times Wall, the last net under both. When any is
	// spent, the search is stopped and the program's processes (its
	// process group: a fork bomb's children too) killed until it stops.
	// The session is closed only here, by this goroutine.
	wctx, cancel := context.WithTimeout(ctx, hardWallFactor*time.Duration(l.Wall))
	defer cancel()
	closed := make(chan struct{})
	// The program's process group: that of the session's first process.
	// A deferred one, not started yet, has none; the search inside the
	// target leads a group of its own, which the meter counts as a live
	// child's, and which that search stops when the check's context
	// ends. (A first process started later, for a report, is ended with
	// its group by the session's Close.)
	group := 0
	if !deferred {
		group, _ = syscall.Getpgid(s.Pid())
	}
	meter.group = group
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		var waited idleWall
		last := time.Now()
		for wctx.Err() == nil {
			select {
			case <-wctx.Done():
			case <-closed:
				return
			case now := <-tick.C:
				used := meter.used()
				if used > time.Duration(l.Budget) || waited.add(used, now.Sub(last)) > time.Duration(l.Wall) {
					cancel()
				}
				last = now
			}
		}
		for {
			procgroup.Kill(group)
			select {
			case <-closed:
				return
			case <-tick.C:
			}
		}
	}()
	defer func() { close(closed); s.Close(); procgroup.Kill(group) }()
	// DFS with DPOR alone, not the portfolio of stdbg find: the portfolio
	// shares its search in wall time, so what it runs, and which member
	// finds a bug first, moves with the machine's load, and grading the
	// same submission twice must give the same result. Bounded by its
	// executions and its depth, a DFS explores the same schedules in the
	// same order on any machine.
	spec := search.Spec{Strategy: search.StrategyDFS}
	if l.Preemptions != nil {
		spec.BoundBy, spec.Bound = search.BoundPreemptions, *l.Preemptions
	}
	if stateful {
		spec.Stateful, spec.Reduction = true, search.ReductionNone
	}
	spec, _, err = spec.Normal()
	if err != nil {
		out.status, out.message = StatusError, err.Error()
		return out, false
	}
	f := &session.Find{
		Plan:     session.Plan{Request: l.request(spec, all), Jobs: 1, InTarget: inTarget, Watched: stateful},
		Visited:  stateful,
		Livelock: c.Kind == KindProgress,
		LTL:      c.formula,
		// Starvation freedom as a course states it assumes fair locks:
		// under weak fairness a thread waiting for a mutex that others
		// take in turn may starve, in every lock-based algorithm.
		Fairness: search.StrongFairness,
		// Each failure's minimisation is bounded by its executions, not
		// by the time the search took: under a loaded machine a
		// minimisation cut by the clock would show another schedule.
		MinimiseByWork: true,
	}
	fctx, stop := context.WithCancel(wctx)
	defer stop()
	f.Hooks.Note = func(msg string) {
		if inTarget && strings.Contains(msg, freshFallback) {
			fellBack = true
			stop()
		}
	}
	// An endless loop (a step longer than Limits.Step) fails every check
	// of the search: the search stops there, and the loop is reported
	// as found, not minimised. Each execution that meets the loop takes
	// the whole step bound, wall time whose CPU share depends on the
	// machine's load: going on, or minimising, ran out of the check's
	// time bounds on a busy machine and not on an idle one, and the
	// student got "unfinished" instead of "endless loop".
	var endless atomic.Bool
	f.Hooks.OnBug = func(b search.Bug) {
		if alwaysFail[b.Outcome.Kind.String()] {
			endless.Store(true)
			stop()
		}
	}
	if !b.t.Go {
		// Minimise and explain only the first bug of each kind the
		// checks of the search count. (A Go search inside the target has
		// minimised every bug already, in its own process, faster than
		// stdbg would.)
		counted := g.countedBy(c)
		f.Pick = func(bugs []search.Bug) []search.Bug {
			var out []search.Bug
			seen := map[string]bool{}
			for _, bug := range bugs {
				kind := bug.Outcome.Kind.String()
				if counted(kind) && !seen[kind] {
					seen[kind] = true
					out = append(out, bug)
				}
			}
			return out
		}
	}
	found, err := s.Find(fctx, f)
	if fellBack {
		return out, true
	}
	switch {
	case wctx.Err() != nil && ctx.Err() == nil || err == nil && found != nil && found.BudgetSpent:
		out.status, out.message = StatusUnfinished, fmt.Sprintf("the check did not finish within its bounds of %s of CPU time and %s of waiting, so it could not be graded: "+
			"your program may run for ever, wait for ever, start processes without end or allocate without end", time.Duration(l.Budget), time.Duration(l.Wall))
		return out, false
	case err != nil && (found == nil || len(found.Findings) == 0):
		out.status, out.message = StatusError, "the check could not run: "+strings.ReplaceAll(err.Error(), b.dir+"/", "")
		return out, false
	case found.Search.Stats.Executions == 0 && len(found.Findings) == 0:
		out.status, out.message = StatusFailed, "your program did not run a single schedule to its end within the check's limits: "+
			"it may start processes or allocate memory without end, or take too long to start"
		return out, false
	}
	out.found = found
	out.first = endless.Load()
	return out, false
}

// hardWallFactor times Limits.Wall bounds a check's wall time whatever it
// does: a program that keeps using a little CPU, never enough to spend its
// budget nor so little that its waiting counts (idleWall).
const hardWallFactor = 10

// idleWall is the wall time a check spent waiting: the intervals in which
// the check's processes (the grader's and the program's) used less than
// one hundredth of the interval's CPU time, as a program that sleeps or
// blocks for ever does. A check that computes (a search, a program that
// allocates without end) uses more, however busy the machine: on two CPUs
// shared by forty processes each still gets about a twentieth of one. Its
// wall time stretches with the load; its CPU time, which Budget bounds,
// does not.
type idleWall struct {
	used, idle time.Duration // the CPU time at the last interval's end, the idle time so far
}

// add counts an interval of wall time at whose end the check had used
// cpu in all, and returns the idle time so far.
func (w *idleWall) add(cpu, interval time.Duration) time.Duration {
	if cpu-w.used < interval/100 {
		w.idle += interval
	}
	w.used = cpu
	return w.idle
}

// countedBy returns whether a bug of a kind fails any check that shares
// c's search.
func (g *grader) countedBy(c *Check) func(kind string) bool {
	key := g.groupKey(c)
	var same []*Check
	for i := range g.a.Checks {
		if g.groupKey(&g.a.Checks[i]) == key {
			same = append(same, &g.a.Checks[i])
		}
	}
	return func(kind string) bool {
		for _, o := range same {
			if o.counts(kind) {
				return true
			}
		}
		return false
	}
}

// request is the hunt of a check with limits l and search spec: every
// bug (all) or the first, minimised.
func (l Limits) request(spec search.Spec, all bool) hunt.Request {
	return hunt.Request{Search: spec, MaxDepth: l.MaxDepth, All: all, MaxExecutions: l.Executions,
		Minimise: true, MinimiseExecutions: l.MinimiseExecutions}
}
