package hunt_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// cutting is an executor whose one thread yields until its third step,
// which the runtime cuts at the budget's end (search.ErrStepCut).
type cutting struct{}

type cuttingRun struct{ steps *int }

func (cutting) Start() (search.Execution, error) { return cuttingRun{new(int)}, nil }

func (cuttingRun) Threads() []search.Thread {
	return []search.Thread{{ID: 1, Op: syncmodel.Op{Kind: syncmodel.Yield}, Enabled: true}}
}
func (cuttingRun) Ended() *search.Outcome { return nil }
func (cuttingRun) Close() error           { return nil }

func (e cuttingRun) Step(schedule.Step) error {
	if *e.steps++; *e.steps == 3 {
		return fmt.Errorf("%w: thread 1 had not reached its next scheduling point after 1s: %w", search.ErrStepCut, context.DeadlineExceeded)
	}
	return nil
}

// A step cut by the runtime at the budget's end stops the search as the
// budget does, even before the budget's context has ended by its own
// timer: incomplete, the execution under way cut, no error.
func TestStepCutIsTheBudget(t *testing.T) {
	res, err := hunt.Run(context.Background(), hunt.Config{Executor: cutting{}, Strategy: search.NewDFS(),
		Request: hunt.Request{MaxDepth: 100, Budget: time.Hour}})
	if err != nil {
		t.Fatalf("hunt: %v", err)
	}
	if !res.BudgetSpent || res.Search.Complete || res.Search.Cut != 3 || len(res.Findings) != 0 {
		t.Errorf("budget spent %v, complete %v, cut after %d, %d findings; want spent, incomplete, cut after 3, none",
			res.BudgetSpent, res.Search.Complete, res.Search.Cut, len(res.Findings))
	}
	if errors.Is(err, search.ErrStepCut) {
		t.Error("the cut is an error")
	}
}

// The runtime is told when each phase that runs on the hunt's executor
// ends (Config.StepDeadline), so that it can cut a step still running
// then: the search's share of the budget before the search, the
// minimisation's bound before it (within the budget), and no end after
// each.
func TestStepDeadlines(t *testing.T) {
	rt := embrace()
	var told []time.Time
	const budget = time.Minute
	before := time.Now()
	res, err := hunt.Run(context.Background(), hunt.Config{
		Executor: executor.New(rt, executor.Options{}), Request: hunt.Request{MaxDepth: 100, Minimise: true, Budget: budget},
		StepDeadline: func(d time.Time) { told = append(told, d) },
	})
	after := time.Now()
	if err != nil || len(res.Findings) != 1 || res.Findings[0].Minimised == nil {
		t.Fatalf("hunt: %v, %+v; want the deadlock found and minimised", err, res)
	}
	if len(told) != 4 || told[0].IsZero() || !told[1].IsZero() || told[2].IsZero() || !told[3].IsZero() {
		t.Fatalf("told %v; want the search's end, none, the minimisation's end, none", told)
	}
	// The hunt began between before and after.
	first, _ := hunt.Deadlines(before, budget, true)
	last, _ := hunt.Deadlines(after, budget, true)
	if told[0].Before(first) || told[0].After(last) {
		t.Errorf("the search ends at %v; want its share of the budget, between %v and %v", told[0], first, last)
	}
	if told[2].After(after.Add(budget)) {
		t.Errorf("the minimisation ends at %v, after the budget's end", told[2])
	}
}
