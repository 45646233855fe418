package hunt_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

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
