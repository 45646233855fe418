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
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// BenchmarkThroughput exhausts, with DPOR on one copy of the program (as
// stdbg find -j 1 does), the C programs of the throughput table in the
// README (docs/throughput.md): a mutex counter of 3 threads x 3 critical
// sections and of 4 x 2, the bounded buffer with 2 producers and 2
// consumers, and 8 dining philosophers. Each program runs in four modes,
// side by side in one run: "threads" creates the program's threads in
// every execution and hands every step over on its own; "pool" keeps the
// threads parked between executions (targetproc.Config.KeepThreads); "batches"
// also runs the replayed prefixes in batches (executor.Batcher);
// "contexts" (what stdbg find does) also runs the main thread and the kept
// ones as contexts on one kernel thread (targetproc.Config.NoContexts unset).
// Beside the rates it reports the transitions of one
// execution and the share of them that replay a prefix an earlier
// execution already ran (transitions that reach no new node of the search
// tree):
//
//	go test -run '^$' -bench Throughput -benchtime 3x ./benchmarks
func BenchmarkThroughput(b *testing.B) {
	for _, p := range []struct {
		name, src string
		args      []string
	}{
		{"counter-3x3", "bench/counter.c", []string{"3", "3"}},
		{"counter-4x2", "bench/counter.c", []string{"4", "2"}},
		{"prodcons-2+2", filepath.Join("dpor", "prodcons2x2.c"), nil},
		{"philosophers-8", "bench/philosophers.c", []string{"8"}},
	} {
		exe, err := ctarget.Build(filepath.Join("..", "examples", "c", p.src))
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range []struct {
			name                    string
			pool, batches, contexts bool
		}{{"threads", false, false, false}, {"pool", true, false, false}, {"batches", true, true, false}, {"contexts", true, true, true}} {
			b.Run(p.name+"/"+m.name, func(b *testing.B) {
				cfg := targetproc.Config{Binary: exe, Args: p.args, Flags: wire.FlagFastExit, KeepThreads: m.pool, NoContexts: !m.contexts}
				throughput(b, cfg, m.batches)
			})
		}
	}
}

// BenchmarkThroughputMemory runs the programs of BenchmarkThroughput as
// stdbg find runs a C source by default (contexts, races on) from the plain
// build ("plain", --memory=false) and from the instrumented one, whose
// plain loads and stores are logged for the race detector ("logged", the
// default): what seeing memory costs a program whose shared memory is
// guarded by its locks.
//
//	go test -run '^$' -bench ThroughputMemory -benchtime 3x ./benchmarks
func BenchmarkThroughputMemory(b *testing.B) {
	for _, p := range []struct {
		name, src string
		args      []string
	}{
		{"counter-3x3", "bench/counter.c", []string{"3", "3"}},
		{"prodcons-2+2", filepath.Join("dpor", "prodcons2x2.c"), nil},
		{"philosophers-8", "bench/philosophers.c", []string{"8"}},
	} {
		for _, logged := range []bool{false, true} {
			name := p.name + "/plain"
			if logged {
				name = p.name + "/logged"
			}
			b.Run(name, func(b *testing.B) {
				exe, note, err := ctarget.BuildWith(filepath.Join("..", "examples", "c", p.src), ctarget.BuildOptions{Memory: logged})
				if err != nil || note != "" {
					b.Fatal(err, note)
				}
				cfg := targetproc.Config{Binary: exe, Args: p.args, Flags: wire.FlagFastExit, KeepThreads: true}
				if logged {
					cfg.Env = append(os.Environ(), ctarget.MemoryLogEnv)
				}
				throughputOpts(b, cfg, true, executor.Options{FastExit: true, Races: true})
			})
		}
	}
}

// oneAtATime hides the checker's StartPrefix: every step is a hand-over of
// its own.
type oneAtATime struct{ search.Executor }

func throughput(b *testing.B, cfg targetproc.Config, batches bool) {
	throughputOpts(b, cfg, batches, executor.Options{FastExit: true})
}

func throughputOpts(b *testing.B, cfg targetproc.Config, batches bool, opts executor.Options) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	proc, c := startConfig(b, cfg, opts)
	defer proc.Close()
	var ex search.Executor = c
	if !batches {
		ex = oneAtATime{c}
	}
	var st search.Stats
	var wall time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		res, err := search.Explore(context.Background(), ex, search.NewDPOR(), search.Options{All: true})
		wall += time.Since(t0)
		if err != nil || !res.Complete || len(res.Bugs) > 0 {
			b.Fatalf("%v, complete %v, bugs %v", err, res.Complete, res.Bugs)
		}
		st.Executions += res.Stats.Executions
		st.Transitions += res.Stats.Transitions
		st.States += res.Stats.States
	}
	n := float64(b.N)
	b.ReportMetric(float64(st.Executions)/n, "executions/op")
	b.ReportMetric(float64(st.Executions)/wall.Seconds(), "executions/s")
	b.ReportMetric(wall.Seconds()/n, "s/op")
	b.ReportMetric(float64(st.Transitions)/float64(st.Executions), "transitions/execution")
	replayed := (float64(st.Transitions) - (float64(st.States) - n)) / float64(st.Transitions)
	b.ReportMetric(100*replayed, "%replayed")
}
