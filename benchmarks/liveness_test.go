package benchmarks

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stdbg/stdbg/checker"
	"github.com/stdbg/stdbg/ctarget"
	"github.com/stdbg/stdbg/schedule"
	"github.com/stdbg/stdbg/search"
	"github.com/stdbg/stdbg/wire"
)

// startStateful launches an example with state reports, as stdbg find
// --visited does.
func startStateful(b *testing.B, example string) (*ctarget.Process, *checker.Checker) {
	b.Helper()
	exe, err := ctarget.Build(filepath.Join("..", "examples", "c", example))
	if err != nil {
		b.Fatal(err)
	}
	p, err := ctarget.Start(ctarget.Config{Binary: exe, Flags: wire.FlagFastExit | wire.FlagState})
	if err != nil {
		b.Fatal(err)
	}
	return p, checker.New(p, checker.Options{FastExit: true})
}

// BenchmarkStatefulTransition is BenchmarkHandoff with a state fingerprint
// at every scheduling point (the library hashes the program's memory, the
// checker adds positions and the model's state): the difference between
// the two is the fingerprint's cost per scheduling point.
func BenchmarkStatefulTransition(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p, c := startStateful(b, "yield-loop.c")
	defer p.Close()
	var n int
	var spent time.Duration
	for n < b.N {
		e, err := c.Begin()
		if err != nil {
			b.Fatal(err)
		}
		if err := e.Step(schedule.Step{Thread: 1, Choice: schedule.NoChoice}); err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		tid := 1
		for k := 0; k < 10000 && n < b.N && e.Ended() == nil; k++ {
			tid = 3 - tid
			if err := e.Step(schedule.Step{Thread: tid, Choice: schedule.NoChoice}); err != nil {
				b.Fatal(err)
			}
			if _, ok := e.State(); !ok {
				b.Fatal("no state")
			}
			n++
		}
		spent += time.Since(t0)
		e.Close()
	}
	b.ReportMetric(float64(spent.Nanoseconds())/float64(n), "ns/transition")
}

// exploreLiveness explores an example to the end, stateless (bounded by
// depth) or stateful, and reports executions and distinct states.
func exploreLiveness(b *testing.B, example string, opts search.Options) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var p *ctarget.Process
	var c *checker.Checker
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
