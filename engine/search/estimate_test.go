package search

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stdbg/stdbg/model/syncmodel"
)

// independents: n threads exist from the start, each writing its own
// variable k times: one trace.
func independents(n, k int) *fakeExecutor {
	scripts := make([][]fop, n)
	for i := range scripts {
		for range k {
			scripts[i] = append(scripts[i], fop{kind: syncmodel.Write, obj: uint64(i + 1)})
		}
	}
	return newFake(n, scripts...)
}

// TestEstimateTree holds the estimates to the executions the exhaustive
// searches run on programs whose trees are known: exact counts, run here.
func TestEstimateTree(t *testing.T) {
	tests := []struct {
		name      string
		ex        func() *fakeExecutor
		reduction string
		factor    float64 // the estimate is within this factor of the count
	}{
		{"every schedule of yielders", func() *fakeExecutor { return yielders(3, 2) }, ReductionNone, 1.25},
		{"every schedule of lockers", func() *fakeExecutor { return lockers(4) }, ReductionNone, 1.25},
		{"every schedule of the embrace", embrace, ReductionNone, 1.25},
		{"DPOR of lockers", func() *fakeExecutor { return lockers(5) }, ReductionDPOR, 1.25},
		{"DPOR of independent threads", func() *fakeExecutor { return independents(4, 3) }, ReductionDPOR, 1.01},
		{"DPOR of the embrace", embrace, ReductionDPOR, 1.25},
		{"DPOR of the late reversal", func() *fakeExecutor { return lateReversal(3) }, ReductionDPOR, 1.5},
		{"DPOR of yielders", func() *fakeExecutor { return yielders(3, 2) }, ReductionDPOR, 1.5},
		{"DPOR of a data choice", chooser, ReductionDPOR, 1.01},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var st Strategy = NewDFS()
			if tt.reduction == ReductionDPOR {
				st = NewDPOR()
			}
			full, err := Explore(context.Background(), tt.ex(), st, Options{All: true})
			if err != nil || !full.Complete {
				t.Fatalf("exhaustive search: %v", err)
			}
			want := float64(full.Stats.Executions)
			est, err := EstimateTree(context.Background(), tt.ex(), EstimateOptions{Reduction: tt.reduction, Probes: 2000, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			if est.Probes != 2000 || est.Stats.Executions != 2000 {
				t.Errorf("%d probes, %d executions: want 2000", est.Probes, est.Stats.Executions)
			}
			if r := est.Executions / want; r > tt.factor || r < 1/tt.factor {
				t.Errorf("estimated %.1f executions (±%.0f%%), the search ran %.0f", est.Executions, 100*est.RelError, want)
			}
			if math.Abs(math.Pow(10, est.Log10Executions)-est.Executions) > 1e-6*est.Executions {
				t.Errorf("log10 %v and executions %v disagree", est.Log10Executions, est.Executions)
			}
			if est.Transitions < est.Executions || est.Time <= 0 {
				t.Errorf("transitions %.0f, time %v", est.Transitions, est.Time)
			}
			t.Logf("estimate %.1f (±%.1f%%), exhaustive %.0f", est.Executions, 100*est.RelError, want)
		})
	}
}

// An estimate of a tree far too big to count stays finite in its
// logarithm, and a deadline ends the probes with the estimate so far.
func TestEstimateTreeHuge(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	est, err := EstimateTree(ctx, yielders(12, 30), EstimateOptions{Reduction: ReductionNone, Probes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if est.Probes == 0 || est.Probes >= 1<<30 {
		t.Fatalf("%d probes", est.Probes)
	}
	// 360 steps among 12 threads of 30: 360!/(30!)^12, about 10^358.
	if est.Log10Executions < 300 || est.Log10Executions > 420 || !math.IsInf(est.Executions, 1) {
		t.Errorf("log10 %.1f, executions %v", est.Log10Executions, est.Executions)
	}
}

func TestEstimateTreeRefuses(t *testing.T) {
	if _, err := EstimateTree(context.Background(), lockers(2), EstimateOptions{Reduction: "sleep"}); err == nil {
		t.Error("unknown reduction accepted")
	}
}

// The fraction of the tree explored that DFS and DPOR report grows to 1
// at the end of the search, and stays within [0, 1] on the way.
func TestExplored(t *testing.T) {
	for _, tt := range []struct {
		name string
		st   Strategy
	}{{"dfs", NewDFS()}, {"dpor", NewDPOR()}} {
		t.Run(tt.name, func(t *testing.T) {
			pr := tt.st.(Progressive)
			var seen []float64
			rec := &progressRecorder{Strategy: tt.st, f: func() { seen = append(seen, pr.Explored()) }}
			res, err := Explore(context.Background(), lockers(5), rec, Options{})
			if err != nil || !res.Complete {
				t.Fatal(err)
			}
			if res.Stats.Explored != 1 {
				t.Errorf("Stats.Explored %v at the end", res.Stats.Explored)
			}
			mid := seen[len(seen)/2]
			if mid <= 0.2 || mid >= 0.8 {
				t.Errorf("half way (execution %d of %d): %v explored", len(seen)/2, len(seen), mid)
			}
			for i, f := range seen {
				if f < 0 || f > 1 {
					t.Errorf("execution %d: %v explored", i+1, f)
				}
			}
		})
	}
}

// progressRecorder calls f after each execution.
type progressRecorder struct {
	Strategy
	f func()
}

func (r *progressRecorder) End(rep *Report) {
	r.Strategy.End(rep)
	r.f()
}

func (r *progressRecorder) Explored() float64 { return r.Strategy.(Progressive).Explored() }
