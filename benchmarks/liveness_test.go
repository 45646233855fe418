package benchmarks

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/target/targetproc"
)

// BenchmarkStatefulTransition is BenchmarkHandoff with a state fingerprint
// at every scheduling point (the library hashes the program's memory, the
// checker adds positions and the model's state): the difference between
// the two is the fingerprint's cost per scheduling point.
func BenchmarkStatefulTransition(b *testing.B) {
	benchSteps(b, true, true)
}

// exploreLiveness explores an example to the end, stateless (bounded by
// depth) or stateful, and reports executions and distinct states.
func exploreLiveness(b *testing.B, example string, opts search.Options) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var p *targetproc.Process
	var c *executor.Executor
	if opts.Visited || opts.Livelock || opts.Graph {
		p, c = startStateful(b, filepath.Join("liveness", example))
	} else {
		p, c = start(b, filepath.Join("liveness", example))
	}
	defer p.Close()
	var st search.Stats
	for i := 0; i < b.N; i++ {
		res, err := search.Explore(context.Background(), c, search.NewDFS(), opts)
		if err != nil {
			b.Fatal(err)
		}
		st = res.Stats
	}
	b.ReportMetric(float64(st.Executions), "execs/op")
	b.ReportMetric(float64(st.Transitions), "transitions/op")
	b.ReportMetric(float64(st.Visited), "visited/op")
	b.ReportMetric(float64(st.MaxDepthHit), "cut/op")
}

func BenchmarkSpinHandoffStateless20(b *testing.B) {
	exploreLiveness(b, "spin-handoff.c", search.Options{MaxDepth: 20, All: true})
}
func BenchmarkSpinHandoffStateless30(b *testing.B) {
	exploreLiveness(b, "spin-handoff.c", search.Options{MaxDepth: 30, All: true})
}
func BenchmarkSpinHandoffVisited(b *testing.B) {
	exploreLiveness(b, "spin-handoff.c", search.Options{MaxDepth: 1000, Visited: true})
}
func BenchmarkPetersonStateless20(b *testing.B) {
	exploreLiveness(b, "peterson.c", search.Options{MaxDepth: 20, All: true})
}
func BenchmarkPetersonVisited(b *testing.B) {
	exploreLiveness(b, "peterson.c", search.Options{MaxDepth: 1000, Visited: true})
}
func BenchmarkCondQueueStateless(b *testing.B) {
	exploreLiveness(b, "cond-queue.c", search.Options{MaxDepth: 1000, All: true})
}
func BenchmarkCondQueueVisited(b *testing.B) {
	exploreLiveness(b, "cond-queue.c", search.Options{MaxDepth: 1000, Visited: true})
}
func BenchmarkPriorityInversionLivelock(b *testing.B) {
	exploreLiveness(b, "priority-inversion.c", search.Options{MaxDepth: 1000, Livelock: true})
}
