package main

import (
	"fmt"

	"github.com/stdbg/stdbg/report"
	"github.com/stdbg/stdbg/schedule"
	"github.com/stdbg/stdbg/search"
	"github.com/stdbg/stdbg/wire"
)

// This file holds what find does with the bugs it found: the replay in a
// fresh process that confirms them, the report of each, and the printing
// of the result.

// confirmFresh replays each bug (but lassos) in a fresh process of the
// program and reports whether each ends the same way: a Go program runs
// many executions in one process, and one that keeps state from one to the
// next may fail in a way that no fresh run shows.
func (a *app) confirmFresh(s *session, bugs []search.Bug, maxDepth int) bool {
	for _, bug := range bugs {
		if bug.Cycle != nil {
			continue
		}
		o, err := a.replayFresh(s, bug.Schedule, maxDepth)
		if err != nil || o == nil || o.Kind != bug.Outcome.Kind || o.Where != bug.Outcome.Where {
			return false
		}
	}
	return true
}

// explain replays a bug's schedule with full stacks and builds its report.
func (a *app) explain(s *session, bug search.Bug, maxDepth int) (*report.Report, error) {
	old := s.proc.Flags()
	s.proc.SetFlags(old | wire.FlagStacks)
	defer s.proc.SetFlags(old)
	e, err := s.chk.Begin()
	if err != nil {
		return nil, fmt.Errorf("replaying the bug: %w", err)
	}
	defer e.Close()
	rr, err := search.Replay(e, bug.Schedule, maxDepth)
	if err != nil {
		return nil, fmt.Errorf("replaying the bug: %w", err)
	}
	r := report.Build(e, rr.Outcome, s.syms)
	if r.Path == "" {
		r.Path = bug.Schedule.String()
	}
	if rr.Outcome == nil || rr.Outcome.Kind != bug.Outcome.Kind || rr.Outcome.Where != bug.Outcome.Where {
		got := "no failure"
		if rr.Outcome != nil {
			got = rr.Outcome.Kind.String() + " (" + rr.Outcome.Message + ")"
		}
		r.Notes = append(r.Notes, fmt.Sprintf("replaying the schedule gave %s instead of %s: the program may do something nondeterministic between thread operations",
			got, bug.Outcome.Kind))
		if s.proc.Reused() > 0 && s.goPkg {
			r.Notes = append(r.Notes, "the bug was found in a process that had run earlier executions and the replay ran in a fresh one: "+
				"the program may keep state from one execution to the next (package-level variables); STDBG_REUSE=0 runs every execution in a fresh process")
		}
		r.Kind, r.Banner, r.Message, r.Bug = bug.Outcome.Kind.String(), report.Banner(bug.Outcome.Kind), bug.Outcome.Message, true
		r.Path = bug.Schedule.String()
	}
	return r, nil
}

func (a *app) printFind(out *findResult) {
	w := a.stdout
	if len(out.Bugs) == 0 {
		if out.DepthLimited {
			fmt.Fprintf(w, "%s (%d executions were cut at %d transitions)\n", report.Style("/!\\ Max depth reached ! /!\\", false, a.colour()),
				out.Stats.MaxDepthHit, out.MaxDepth)
		}
		if out.Interrupted {
			fmt.Fprintln(w, "Interrupted: the exploration is incomplete.")
		}
		fmt.Fprintln(w, report.Style("No property violation found.", false, a.colour()))
		a.printSearch(out)
		return
	}
	for i, r := range out.Bugs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		r.WriteStyled(w, a.colour())
		if m := r.Minimised; m != nil {
			proven := "proven minimal"
			if !m.Proven {
				proven = "not proven minimal: budget spent"
			}
			fmt.Fprintf(w, "Minimised from %s, %s to %s, %s (%s, %d executions)\n",
				plural(m.FromLength, "step"), plural(m.FromPreemptions, "preemption"),
				plural(m.Length, "step"), plural(m.Preemptions, "preemption"), proven, m.Executions)
		}
		if r.Saved != "" {
			if r.AlreadySaved {
				fmt.Fprintln(w, "Already in the corpus: "+r.Saved)
			} else {
				fmt.Fprintln(w, "Saved "+r.Saved)
			}
		}
		fmt.Fprintln(w, "Replay: "+r.Replay)
	}
	if len(out.Bugs) > 1 {
		fmt.Fprintf(w, "\n%d distinct bugs found.\n", len(out.Bugs))
	}
	if out.Interrupted {
		fmt.Fprintln(w, "Interrupted: the exploration is incomplete.")
	}
	a.printSearch(out)
}

// printSearch prints what the search covered, the seed that repeats it and
// the statistics.
func (a *app) printSearch(out *findResult) {
	w := a.stdout
	fmt.Fprintln(w, out.Coverage)
	if out.Complete && out.scopeNote != "" {
		fmt.Fprintln(w, out.scopeNote)
	}
	if out.Sampled {
		fmt.Fprintf(w, "Seed = %d (repeat with --seed %d)\n", out.Seed, out.Seed)
	}
	fmt.Fprintln(w, report.FormatStats(out.Stats))
}

// parseSchedule reads a --schedule value.
func parseSchedule(text string) (schedule.Schedule, error) {
	s, err := schedule.Parse(text)
	if err != nil {
		return nil, usageErr("--schedule %q: %v", text, err)
	}
	return s, nil
}

// plural renders "1 step", "3 steps".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
