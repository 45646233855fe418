package main

import (
	"fmt"
	"strings"

	"github.com/stdbg/stdbg/checker"
	"github.com/stdbg/stdbg/ltl"
	"github.com/stdbg/stdbg/report"
	"github.com/stdbg/stdbg/search"
	"github.com/stdbg/stdbg/wire"
)

// stateful reports whether the settings ask for a stateful search.
func (a *app) stateful() bool {
	return a.v.GetBool("visited") || a.v.GetBool("livelock") || a.v.GetString("ltl") != ""
}

// validateStateful refuses the combinations of stateful search and
// reductions that are not sound (docs/liveness.md), and bad formulas.
func (a *app) validateStateful() error {
	if n := a.v.GetInt("cycles"); n < 1 {
		return usageErr("cycles must be at least 1, not %d", n)
	}
	if f := a.v.GetString("ltl"); f != "" {
		if _, err := ltl.Parse(f); err != nil {
			return usageErr("--ltl: %v", err)
		}
	}
	if !a.stateful() {
		return nil
	}
	if r := a.v.GetString("reduction"); r != "none" {
		return usageErr("--visited, --livelock and --ltl need the full state graph: they cannot be combined with --reduction %s (use --reduction none)", r)
	}
	return nil
}

// stateEnv is the environment that makes the C library track what state
// identity needs from the start of the program.
var stateEnv = []string{"STDBG_STATE=1"}

// checkLTL checks the --ltl formula on the complete state graph of an
// exploration and returns the violation as a bug, if any.
func (a *app) checkLTL(res *search.Result) (*search.Bug, error) {
	text := a.v.GetString("ltl")
	if text == "" || res.Graph == nil || !res.Complete {
		return nil, nil
	}
	f, err := ltl.Parse(text)
	if err != nil {
		return nil, usageErr("--ltl: %v", err)
	}
	v, err := ltl.Check(res.Graph, f)
	if err != nil {
		return nil, usageErr("--ltl %s: %v", text, err)
	}
	if v == nil {
		return nil, nil
	}
	return &search.Bug{Schedule: v.Lasso.Stem, Cycle: v.Lasso.Cycle, Outcome: v.Outcome()}, nil
}

// explainLasso replays a livelock or liveness violation (stem and one run
// of the cycle) with full stacks and state reports, and builds its report
// with the propositions' values at each step.
func (a *app) explainLasso(s *session, bug search.Bug) (*report.Report, error) {
	old := s.proc.Flags()
	s.proc.SetFlags(old | wire.FlagStacks | wire.FlagState)
	defer s.proc.SetFlags(old)
	e, err := s.chk.Begin()
	if err != nil {
		return nil, fmt.Errorf("replaying the lasso: %w", err)
	}
	defer e.Close()
	lr, err := search.ReplayLasso(e, bug.Schedule, bug.Cycle, 1)
	if err != nil {
		return nil, fmt.Errorf("replaying the lasso: %w", err)
	}
	return lassoReport(e, s, bug, lr), nil
}

// lassoReport builds the report of a replayed lasso.
func lassoReport(e *checker.Execution, s *session, bug search.Bug, lr *search.LassoRun) *report.Report {
	r := report.Build(e, lr.Result.Outcome, s.syms)
	if lr.Result.Outcome == nil {
		r.Kind, r.Bug, r.Banner, r.Message = bug.Outcome.Kind.String(), true, report.Banner(bug.Outcome.Kind), bug.Outcome.Message
	}
	if strings.HasPrefix(bug.Outcome.Where, "ltl:") {
		r.Banner = "*** LIVENESS PROPERTY NOT VALID ***"
	}
	r.Path = bug.Schedule.String()
	r.Cycle = bug.Cycle.String()
	r.CycleStart = len(bug.Schedule) + 1
	for i := range r.Steps {
		if i < len(lr.States) {
			r.Steps[i].Props = propsText(lr.States[i].Props)
		}
	}
	for i, ok := range lr.Returned {
		if !ok {
			r.Notes = append(r.Notes, fmt.Sprintf("run %d of the cycle did not come back to the state where it began: the program may depend on something stdbg does not hash", i+1))
		}
	}
	return r
}

func propsText(ps []search.Prop) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(' ')
		}
		v := 0
		if p.Value {
			v = 1
		}
		fmt.Fprintf(&b, "%s=%d", p.Name, v)
	}
	return b.String()
}
