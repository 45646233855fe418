package main

import (
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/stdbg/stdbg/hunt"
	"github.com/stdbg/stdbg/insearch"
	"github.com/stdbg/stdbg/schedule"
	"github.com/stdbg/stdbg/search"
)

// inTarget reports whether find runs its search inside the target: a Go
// program or test that can run execution after execution in one process
// (no package-level state), with a search that needs nothing of this
// process at each transition (no state graph, profile or drawing) and no
// account of preemption bounds; a part (--shard) of a search of a target
// built with the race detector is driven from here too, since such a
// target searches in one goroutine only.
func (a *app) inTarget(t *target, p *plan, outs findOutputs) bool {
	return t.goPkg && a.v.GetBool("in-target") && !a.noReuse && os.Getenv("STDBG_REUSE") != "0" &&
		!p.spec.Bounded() && !a.stateful() && !(p.shards > 1 && raceBuilt(t.binary)) && a.v.GetString("profile") == "" && outs.graph == "" && !t.keepsState()
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
func (a *app) spec(p *plan, maxDepth int, budget time.Duration) insearch.Spec {
	sp := insearch.Spec{Search: p.spec, MaxDepth: maxDepth,
		All: a.v.GetBool("all"), MaxExecutions: p.executions, Shard: p.shard, Shards: p.shards,
		Minimise: !a.v.GetBool("no-minimise"), MinimiseExecutions: int64(a.v.GetInt("minimise-executions")),
		TransitionTimeout: a.v.GetDuration("transition-timeout")}
	if budget > 0 {
		searchUntil, until := hunt.Deadlines(time.Now(), budget, sp.Minimise)
		sp.SearchUntil, sp.MinimiseUntil = searchUntil.UnixNano(), until.UnixNano()
	}
	return sp
}

// exploreInTarget runs the search inside the target, in -j processes, and
// confirms each bug in a fresh process. It returns what was found, with
// each bug's minimisation (nil where none was made); an error means the
// search is to be run out of process instead.
func (a *app) exploreInTarget(ctx context.Context, t *target, s *session, p *plan, maxDepth int, opts search.Options, prog *progressLine) (*insearch.Found, error) {
	jobs := 1
	if p.split && !raceBuilt(t.binary) {
		// A target built with the race detector searches in one process:
		// ExploreSplit's goroutines would share the search's data under a
		// detector that sees none of their synchronisation (see
		// insearch.Serve).
		jobs = a.jobs()
	}
	found, err := insearch.Run(ctx, insearch.Config{
		Binary: t.binary, Args: t.runArgs(), Env: envWith(append([]string(nil), t.env...)),
		Spec: a.spec(p, maxDepth, p.budget), Jobs: jobs,
		Replay:   func(sched schedule.Schedule) (*search.Outcome, error) { return a.replayFresh(s, sched, maxDepth) },
		Progress: opts.Progress, Minimising: prog.minimising, OnBug: opts.OnBug,
		OnEnd: func(e insearch.End, how string) {
			if a.v.GetBool("quiet") {
				return
			}
			prog.clear()
			fmt.Fprintf(a.stderr, "stdbg: the program ended its process during schedule %s (%s; a fresh run of it: %s): the search goes on in a new process\n",
				e.Schedule, how, e.Outcome.Kind)
		},
	})
	if err != nil {
		return nil, err
	}
	// Each bug is confirmed by its schedule in a fresh process, whose
	// outcome (named and placed as out of process) is the bug's.
	for i := range found.Bugs {
		b := &found.Bugs[i]
		if b.Cycle != nil {
			continue
		}
		if m := found.Minimised[i]; m != nil {
			o, err := a.replayFresh(s, m.Schedule, maxDepth)
			if err == nil && o != nil && o.Kind == m.Outcome.Kind {
				m.Outcome = *o
			} else {
				found.Minimised[i] = nil // not confirmed: minimised again here
			}
		}
		o, err := a.replayFresh(s, b.Schedule, maxDepth)
		if err != nil {
			return nil, fmt.Errorf("confirming the %s: %w", b.Outcome.Kind, err)
		}
		if o == nil || o.Kind != b.Outcome.Kind {
			return nil, fmt.Errorf("%w: the %s found in the target did not happen in a fresh process", search.ErrNondeterministic, b.Outcome.Kind)
		}
		b.Outcome = *o
	}
	return found, nil
}

// replayFresh runs a schedule in a fresh process of the target and returns
// how it ends.
func (a *app) replayFresh(s *session, sched schedule.Schedule, maxDepth int) (o *search.Outcome, err error) {
	s.proc.WithoutReuse(func() {
		var e search.Execution
		if e, err = s.chk.Begin(); err != nil {
			return
		}
		defer e.Close()
		var rr *search.ReplayResult
		if rr, err = search.Replay(e, sched, maxDepth); err == nil {
			o = rr.Outcome
		}
	})
	return o, err
}

// inTargetFallback says why the search runs out of process after all.
func inTargetFallback(err error) string {
	switch {
	case errors.Is(err, search.ErrNondeterministic):
		return "the program does not repeat itself in a process that ran earlier executions " +
			"(state it keeps in the process: the environment, files, another package's variables?): searching again with a fresh process per execution"
	case errors.Is(err, insearch.ErrTooManyDeaths):
		return "the program ended its process in the middle of the search too often: searching again from this process, transition by transition"
	}
	return fmt.Sprintf("searching inside the program failed (%v): searching again from this process, transition by transition", err)
}
