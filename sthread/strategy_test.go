package sthread_test

import (
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
)

// many has far too many schedules to explore: four goroutines yielding
// twenty times each.
func many() {
	for range 3 {
		sthread.Go(func() {
			for range 20 {
				sthread.Yield()
			}
		})
	}
	for range 20 {
		sthread.Yield()
	}
}

func TestBudgetAndStrategies(t *testing.T) {
	tests := []struct {
		name string
		opts []sthread.Option
	}{
		{"dfs within a budget", []sthread.Option{sthread.Budget(300 * time.Millisecond)}},
		{"random within a budget", []sthread.Option{sthread.Strategy(search.NewRandom(3)), sthread.Budget(300 * time.Millisecond)}},
		{"pct within executions", []sthread.Option{sthread.Strategy(search.NewPCT(3, 3)), sthread.MaxExecutions(50)}},
		{"preemption bound", []sthread.Option{sthread.Strategy(search.NewPreemptionBounding(1)), sthread.Budget(time.Minute)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t0 := time.Now()
			res, err := sthread.Explore(many, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Bugs) != 0 || res.Stats.Executions == 0 {
				t.Errorf("bugs %v after %d executions", res.Bugs, res.Stats.Executions)
			}
			if tt.name == "preemption bound" {
				// 4 goroutines, a preemption at any of ~80 points: all
				// schedules with at most one are few.
				if !res.Complete {
					t.Errorf("preemption-bounded search incomplete after %d executions", res.Stats.Executions)
				}
				return
			}
			if res.Complete {
				t.Errorf("complete after %d executions", res.Stats.Executions)
			}
			if d := time.Since(t0); d > 30*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}
