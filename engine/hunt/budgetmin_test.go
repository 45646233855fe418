package hunt_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
)

// paced makes every execution after the first take each.
type paced struct {
	search.Executor
	each time.Duration
	n    int
}

func (p *paced) Start() (search.Execution, error) {
	if p.n++; p.n > 1 {
		time.Sleep(p.each)
	}
	return p.Executor.Start()
}

// TestBudgetBoundsMinimisation: a budget is a budget. The search is
// bounded by executions alone (its context has no deadline: it found its
// bug after a detour, as foundLong's does), so the budget is the
// minimisation's: it stops at the budget's end with the best schedule it
// has, said not proven minimal because the budget was spent, long before
// its own bound (MinimiseTime, at least five seconds). Every execution of
// the minimisation takes 100 ms and proving the bug's schedule minimal
// takes more of them than the budget's 300 ms hold, so the budget ends
// it whatever the machine's speed.
func TestBudgetBoundsMinimisation(t *testing.T) {
	rt := embrace()
	// Unbounded, the minimisation needs this many executions.
	free := &paced{Executor: executor.New(rt, executor.Options{})}
	res, err := hunt.Run(context.Background(), hunt.Config{
		Executor: free, Request: hunt.Request{MaxDepth: 100, Minimise: true},
		Explore: foundLong(t), Explain: explainer(rt)})
	if err != nil || len(res.Findings) != 1 || res.Findings[0].Minimised == nil || !res.Findings[0].Minimised.Proven {
		t.Fatalf("unbounded: %v, %+v: want the bug minimised and proven", err, res)
	}
	const each, budget = 100 * time.Millisecond, 300 * time.Millisecond
	if need := time.Duration(free.n-1) * each; need <= budget {
		t.Fatalf("the minimisation needs %d executions, %v at %v each: within the budget of %v, which then bounds nothing", free.n, need, each, budget)
	}

	res, err = hunt.Run(context.Background(), hunt.Config{
		Executor: &paced{Executor: executor.New(rt, executor.Options{}), each: each},
		Request:  hunt.Request{MaxDepth: 100, Minimise: true, Budget: budget},
		// The search's time is not the budget's.
		SearchContext: context.Background(),
		Explore:       foundLong(t), Explain: explainer(rt)})
	if err != nil || len(res.Findings) != 1 {
		t.Fatalf("with a budget: %v, %+v: want the bug", err, res)
	}
	f := res.Findings[0]
	if f.Report == nil {
		t.Fatalf("the bug has no report: %+v", f)
	}
	if f.Minimised != nil {
		// Stopped with the best schedule it had: unproven, for the budget.
		if f.Minimised.Proven || f.Report.Minimised == nil || f.Report.Minimised.Unproven != "budget spent" {
			t.Errorf("minimisation %+v, report %+v: want it stopped by the budget, unproven (\"budget spent\")", f.Minimised, f.Report.Minimised)
		}
		return
	}
	// Cut before its first result: the report says the budget did it.
	if !strings.Contains(strings.Join(f.Report.Notes, "\n"), "budget") {
		t.Errorf("not minimised, and the report's notes %q do not say the budget ended it", f.Report.Notes)
	}
}
