package targetsearch_test

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/target/targetsearch"
)

// TestRunSamplingWaits: a portfolio divided among two processes lets DPOR
// search alone for the lead; a search that ends within it runs DPOR's
// executions and nothing beside them: the sampling process never starts.
// (It started at once, and ran 4,208 executions beside DPOR's 3.)
func TestRunSamplingWaits(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go target")
	}
	bin := filepath.Join(t.TempDir(), "embrace")
	if out, err := exec.Command("go", "build", "-o", bin, "../../examples/go/embrace-prog").CombinedOutput(); err != nil {
		t.Fatalf("building the target: %v\n%s", err, out)
	}
	run := func(sp search.Spec, jobs int, lead time.Duration) *targetsearch.Found {
		t.Helper()
		found, err := targetsearch.Run(context.Background(), targetsearch.Config{
			Binary: bin,
			Spec:   targetsearch.Spec{Request: hunt.Request{Search: sp, MaxDepth: 1000, All: true}},
			Jobs:   jobs,
			Replay: func(context.Context, schedule.Schedule) (*search.Outcome, error) {
				return nil, errors.New("no process should end mid-search")
			},
			SamplingLead: lead,
		})
		if err != nil {
			t.Fatal(err)
		}
		return found
	}
	alone := run(search.Spec{Strategy: search.StrategyDFS}, 1, 0)
	if !alone.Complete || len(alone.Bugs) != 1 {
		t.Fatalf("DPOR alone: complete %v, bugs %v", alone.Complete, alone.Bugs)
	}
	divided := run(search.Spec{Strategy: search.StrategyPortfolio}, 2, time.Hour)
	if !divided.Complete || len(divided.Bugs) != 1 || divided.Stats.Executions != alone.Stats.Executions {
		t.Errorf("the portfolio in two processes: complete %v, %d bugs, %d executions; want complete, 1 bug, DPOR's %d",
			divided.Complete, len(divided.Bugs), divided.Stats.Executions, alone.Stats.Executions)
	}
}
