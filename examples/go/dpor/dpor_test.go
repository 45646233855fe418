package dpor

import (
	"fmt"
	"testing"

	"github.com/stdbg/stdbg/sthread"
)

// Each program ends clean under DPOR, in no more executions than running
// every schedule (sthread's own tests check that DPOR runs one execution
// per trace).
func TestProgramsAreClean(t *testing.T) {
	tests := []struct {
		name string
		f    func()
	}{
		{"lastzero 2", LastZero(2)},
		{"indexer 2", Indexer(2)},
		{"readers-writers 2", ReadersWriters(2)},
		{"counter 3", Counter(3)},
		{"prodcons 1", ProdCons(1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dpor, err := sthread.Explore(tt.f, sthread.All())
			if err != nil {
				t.Fatal(err)
			}
			if len(dpor.Bugs) > 0 || !dpor.Complete {
				t.Fatalf("bugs %v, complete %v", dpor.Bugs, dpor.Complete)
			}
			none, err := sthread.Explore(tt.f, sthread.All(), sthread.NoReduction(), sthread.MaxExecutions(20000))
			if err != nil {
				t.Fatal(err)
			}
			if none.Stats.Executions < dpor.Stats.Executions {
				t.Errorf("DPOR ran %d executions, every schedule %d", dpor.Stats.Executions, none.Stats.Executions)
			}
			t.Logf("DPOR %d executions, every schedule %d (complete %v)", dpor.Stats.Executions, none.Stats.Executions, none.Complete)
		})
	}
}

func ExampleCounter() {
	res, err := sthread.Explore(Counter(3), sthread.All())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Stats.Executions, "executions, complete:", res.Complete, "bugs:", len(res.Bugs))
	// Output: 6 executions, complete: true bugs: 0
}

// The 2+2 bounded buffer is exhausted by DPOR in exactly as many
// executions as its C twin has traces, 29,160: a wait on a sync.Cond whose
// Locker is a Mutex is two events, as in C (docs/go-dependency.md).
func TestProdCons2Exhausted(t *testing.T) {
	if testing.Short() {
		t.Skip("29,160 executions")
	}
	res, err := sthread.Explore(ProdCons(2), sthread.All())
	if err != nil {
		t.Fatal(err)
	}
	const traces = 29160
	if !res.Complete || len(res.Bugs) > 0 || res.Stats.Executions > traces {
		t.Fatalf("complete %v, bugs %v, %d executions; want complete, clean, at most %d", res.Complete, res.Bugs, res.Stats.Executions, traces)
	}
	t.Logf("%d executions", res.Stats.Executions)
}

// Every program needs no more executions than its C twin has traces
// (counted by brute force for the C programs, docs/go-dependency.md).
func TestNoMoreExecutionsThanCTraces(t *testing.T) {
	tests := []struct {
		name    string
		f       func()
		cTraces int64
	}{
		{"lastzero 2", LastZero(2), 5},
		{"lastzero 3", LastZero(3), 12},
		{"indexer 2", Indexer(2), 1},
		{"readers-writers 2", ReadersWriters(2), 14},
		{"counter 2", Counter(2), 2},
		{"counter 3", Counter(3), 6},
		{"prodcons 1", ProdCons(1), 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := sthread.Explore(tt.f, sthread.All())
			if err != nil {
				t.Fatal(err)
			}
			if !res.Complete || len(res.Bugs) > 0 || res.Stats.Executions > tt.cTraces {
				t.Errorf("complete %v, bugs %v, %d executions; want complete, clean, at most %d", res.Complete, res.Bugs, res.Stats.Executions, tt.cTraces)
			}
		})
	}
}
