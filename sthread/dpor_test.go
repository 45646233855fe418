package sthread_test

import (
	"context"
	"testing"

	"github.com/stdbg/stdbg/examples/go/dpor"
	"github.com/stdbg/stdbg/search"
	"github.com/stdbg/stdbg/search/searchtest"
	"github.com/stdbg/stdbg/sthread"
)

func countTraces(t *testing.T, f func(), st search.Strategy) (*searchtest.TraceCounter, *search.Result) {
	t.Helper()
	ex, done := sthread.Executor(f)
	defer done()
	c := searchtest.NewTraceCounter(st)
	res, err := search.Explore(context.Background(), ex, c, search.Options{All: true, MaxExecutions: 300000})
	if err != nil {
		t.Fatal(err)
	}
	return c, res
}

// The Go DPOR programs at small sizes: DPOR runs exactly one execution per
// Mazurkiewicz trace, the traces counted over every schedule. (There are
// more traces than in the C versions: the Done of each goroutine changes
// the same WaitGroup counter, so their order counts.)
func TestDPOROneExecutionPerTraceGo(t *testing.T) {
	tests := []struct {
		name string
		f    func()
		slow bool
	}{
		{"readers-writers 1", dpor.ReadersWriters(1), false},
		{"counter 2", dpor.Counter(2), false},
		{"indexer 2", dpor.Indexer(2), true},
		{"prodcons 1", dpor.ProdCons(1), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.slow && testing.Short() {
				t.Skip("runs every schedule, over 20000")
			}
			all, none := countTraces(t, tt.f, search.NewDFS())
			if !none.Complete {
				t.Skipf("too many schedules: %d", none.Stats.Executions)
			}
			red, res := countTraces(t, tt.f, search.NewDPOR())
			t.Logf("every schedule: %d executions, %d traces; DPOR: %d executions (%d pruned), %d traces",
				none.Stats.Executions, len(all.Traces), res.Stats.Executions, res.Stats.Pruned, len(red.Traces))
			if red.Runs != len(all.Traces) || len(red.Traces) != len(all.Traces) {
				t.Errorf("DPOR ran %d executions over %d traces; there are %d", red.Runs, len(red.Traces), len(all.Traces))
			}
			for k := range all.Traces {
				if red.Traces[k] == 0 {
					t.Errorf("DPOR missed trace %s", k)
				}
			}
		})
	}
}
