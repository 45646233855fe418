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

// The 2+2 bounded buffer is exhausted by DPOR. Its C twin has 29,160
// traces; the Go program needs more executions (the relation is still
// conservative for Go's condition variables, docs/go-dependency.md), and
// this bound keeps what has been won.
func TestProdCons2Exhausted(t *testing.T) {
	if testing.Short() {
		t.Skip("about 50,000 executions")
	}
	res, err := sthread.Explore(ProdCons(2), sthread.All())
	if err != nil {
		t.Fatal(err)
	}
	const bound = 53318
	if !res.Complete || len(res.Bugs) > 0 || res.Stats.Executions > bound {
		t.Fatalf("complete %v, bugs %v, %d executions; want complete, clean, at most %d", res.Complete, res.Bugs, res.Stats.Executions, bound)
	}
	t.Logf("%d executions", res.Stats.Executions)
}
