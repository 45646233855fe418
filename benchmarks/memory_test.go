package benchmarks

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// launchMemory builds a C example, with the memory instrumentation or
// not, and starts it as stdbg find does: an instrumented build with races
// on logs its plain accesses (ctarget.MemoryLogEnv), with races off they
// are scheduling points.
func launchMemory(b *testing.B, example string, memory, races bool, args ...string) (*targetproc.Process, *executor.Executor) {
	b.Helper()
	exe, note, err := ctarget.BuildWith(filepath.Join("..", "examples", "c", example), ctarget.BuildOptions{Memory: memory})
	if err != nil || note != "" {
		b.Fatalf("building %s: %v %s", example, err, note)
	}
	cfg := targetproc.Config{Binary: exe, Args: args, Flags: wire.FlagFastExit, KeepThreads: true}
	if memory && races {
		cfg.Env = append(os.Environ(), ctarget.MemoryLogEnv)
	}
	p, c := startConfig(b, cfg, executor.Options{FastExit: true, Races: races})
	b.Cleanup(func() { p.Close() })
	return p, c
}

// BenchmarkMemoryCost exhausts correct programs with DPOR from the plain
// build (stdbg find --memory=false), from the instrumented one with races
// on (the default: plain accesses logged for the race detector, atomics
// scheduling points) and with races off (every access a scheduling
// point): what seeing memory costs in executions and in executions/s.
func BenchmarkMemoryCost(b *testing.B) {
	programs := []struct {
		name, file string
		args       []string
	}{
		{"counter(3)", "dpor/counter.c", []string{"3"}},
		{"prodcons 1+1", "dpor/prodcons.c", []string{"1", "1"}},
		{"readers-writers(2)", "dpor/readers-writers.c", []string{"2"}},
		{"barrier-phases", "barrier-phases.c", nil},
	}
	for _, pr := range programs {
		for _, mode := range []struct {
			name          string
			memory, races bool
		}{{"plain", false, true}, {"logged", true, true}, {"points", true, false}} {
			b.Run(pr.name+"/"+mode.name, func(b *testing.B) {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				_, c := launchMemory(b, pr.file, mode.memory, mode.races, pr.args...)
				var execs, trans int64
				var elapsed time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					res, err := search.Explore(context.Background(), c, search.NewDPOR(), search.Options{MaxDepth: 5000, All: true})
					if err != nil {
						b.Fatal(err)
					}
					if !res.Complete || len(res.Bugs) > 0 {
						b.Fatalf("complete %v, bugs %d: want a complete search without bugs", res.Complete, len(res.Bugs))
					}
					execs += res.Stats.Executions
					trans += res.Stats.Transitions
					elapsed += res.Stats.Elapsed
				}
				b.ReportMetric(float64(execs)/elapsed.Seconds(), "execs/s")
				b.ReportMetric(float64(execs)/float64(b.N), "execs/op")
				b.ReportMetric(float64(trans)/float64(execs), "transitions/exec")
			})
		}
	}
}

// BenchmarkMemoryBugs measures executions to the first bug of the memory
// examples (instrumented builds) with DPOR and the race detector, DPOR
// without it, and PCT (depth 3, seeds 1..b.N), and how many of the bug's
// steps are memory accesses.
func BenchmarkMemoryBugs(b *testing.B) {
	files := []string{"lost-update.c", "check-then-act.c", "double-checked.c", "publish.c", "refcount.c",
		"ring-buffer.c", "token-ring.c", "work-stealing.c", "aba-stack.c"}
	strategies := []struct {
		name  string
		races bool
		st    func(seed uint64) search.Strategy
	}{
		{"dpor", true, func(uint64) search.Strategy { return search.NewDPOR() }},
		{"dpor-no-races", false, func(uint64) search.Strategy { return search.NewDPOR() }},
		{"pct3-no-races", false, func(seed uint64) search.Strategy { return search.NewPCT(3, seed) }},
	}
	for _, f := range files {
		for _, s := range strategies {
			if (f == "publish.c" || f == "work-stealing.c") && !s.races {
				continue // sequentially consistent, nothing fails: only the race is a bug
			}
			b.Run(f+"/"+s.name, func(b *testing.B) {
				_, c := launchMemory(b, filepath.Join("memory", f), true, s.races)
				var execs, memSteps, steps, found int64
				var elapsed time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					res, err := search.Explore(context.Background(), c, s.st(uint64(i+1)),
						search.Options{MaxDepth: 1000, MaxExecutions: 100000})
					if err != nil {
						b.Fatal(err)
					}
					execs += res.Stats.Executions
					elapsed += res.Stats.Elapsed
					if len(res.Bugs) == 0 {
						continue
					}
					found++
					bug := res.Bugs[0]
					e, err := c.Begin()
					if err != nil {
						b.Fatal(err)
					}
					if _, err := search.Replay(e, bug.Schedule, 1000); err != nil {
						b.Fatal(err)
					}
					for _, st := range e.Trace() {
						steps++
						if memoryAPI(st.Op.API) {
							memSteps++
						}
					}
					e.Close()
				}
				if found == 0 {
					b.Fatalf("no bug found in %d executions", execs)
				}
				b.ReportMetric(float64(execs)/float64(b.N), "execs-to-bug")
				b.ReportMetric(elapsed.Seconds()/float64(b.N)*1000, "ms-to-bug")
				b.ReportMetric(float64(found)/float64(b.N), "found")
				b.ReportMetric(float64(memSteps)/float64(found), "memory-steps")
				b.ReportMetric(float64(steps)/float64(found), "steps")
			})
		}
	}
}

func memoryAPI(api syncmodel.API) bool {
	switch api {
	case syncmodel.APILoad, syncmodel.APIStore, syncmodel.APICAtomicLoad, syncmodel.APICAtomicStore, syncmodel.APICAtomicRMW:
		return true
	}
	return false
}
