// Package benchmarks measures stdbg's exploration speed on the bundled
// examples. Run them with
//
//	go test -run '^$' -bench . -benchtime 3s ./benchmarks
//
// Each benchmark reports executions/s and transitions/s as custom metrics.
package benchmarks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

var cache string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "stdbg-bench-")
	if err != nil {
		panic(err)
	}
	cache = dir
	os.Setenv("STDBG_CACHE", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// start builds and launches an example as exploration does.
func start(b *testing.B, example string, args ...string) (*targetproc.Process, *executor.Executor) {
	b.Helper()
	return launch(b, example, wire.FlagFastExit, args...)
}

// startStateful launches an example with state reports, as stdbg find
// --visited does.
func startStateful(b *testing.B, example string) (*targetproc.Process, *executor.Executor) {
	b.Helper()
	return launch(b, example, wire.FlagFastExit|wire.FlagState)
}

func launch(b *testing.B, example string, flags uint32, args ...string) (*targetproc.Process, *executor.Executor) {
	b.Helper()
	exe, err := ctarget.Build(filepath.Join("..", "examples", "c", example))
	if err != nil {
		b.Fatal(err)
	}
	return startExe(b, exe, flags, executor.Options{FastExit: true}, args...)
}

// startExe starts a built program as exploration does, placed as stdbg
// find places one copy of it.
func startExe(b *testing.B, exe string, flags uint32, opts executor.Options, args ...string) (*targetproc.Process, *executor.Executor) {
	b.Helper()
	return startConfig(b, targetproc.Config{Binary: exe, Args: args, Flags: flags, KeepThreads: true}, opts)
}

// startConfig is startExe with the whole configuration of the process.
func startConfig(b *testing.B, cfg targetproc.Config, opts executor.Options) (*targetproc.Process, *executor.Executor) {
	b.Helper()
	p, err := ctarget.Start(cfg)
	if err != nil {
		b.Fatal(err)
	}
	// Placed as stdbg find places one copy of the program ($STDBG_PIN=0:
	// left to the kernel).
	release, err := targetproc.PinAlone(p)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(release)
	return p, executor.New(p, opts)
}

// exhaust explores the whole space within maxDepth (All: every bug is
// recorded and exploration goes on) and reports the rates.
func exhaust(b *testing.B, example string, maxDepth int, args ...string) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p, c := start(b, example, args...)
	defer p.Close()
	var execs, trans int64
	var elapsed time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := search.Explore(context.Background(), c, search.NewDFS(), search.Options{MaxDepth: maxDepth, All: true})
		if err != nil {
			b.Fatal(err)
		}
		if !res.Complete {
			b.Fatal("exploration incomplete")
		}
		execs += res.Stats.Executions
		trans += res.Stats.Transitions
		elapsed += res.Stats.Elapsed
	}
	b.ReportMetric(float64(execs)/elapsed.Seconds(), "execs/s")
	b.ReportMetric(float64(trans)/elapsed.Seconds(), "transitions/s")
	b.ReportMetric(float64(execs)/float64(b.N), "execs/op")
	b.ReportMetric(float64(p.Reused())/float64(execs), "reused/exec")
}

func BenchmarkDeadlyEmbraceDepth10(b *testing.B) { exhaust(b, "deadly-embrace.c", 10) }
func BenchmarkDeadlyEmbraceDepth20(b *testing.B) { exhaust(b, "deadly-embrace.c", 20) }
func BenchmarkLeaderElection(b *testing.B)       { exhaust(b, "leader-election.c", 1000) }

// BenchmarkProdCons1x1 exhausts the bounded buffer with one producer and
// one consumer (benchmarks/run measures the bigger configurations within a
// budget).
func BenchmarkProdCons1x1(b *testing.B) { exhaust(b, "bench/prodcons.c", 1000, "1", "1") }

// BenchmarkTransition measures one transition that keeps the same thread
// running: the round trip between the checker and the target.
func BenchmarkTransition(b *testing.B) {
	benchSteps(b, false, false)
}

// BenchmarkHandoff measures one transition that switches threads: the
// round trip plus waking another OS thread of the target.
func BenchmarkHandoff(b *testing.B) {
	benchSteps(b, true, false)
}

// benchSteps times the transitions of yield-loop.c, switching threads at
// every one or not, with a state fingerprint at every scheduling point or
// not.
func benchSteps(b *testing.B, switching, stateful bool) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	flags := uint32(wire.FlagFastExit)
	if stateful {
		flags |= wire.FlagState
	}
	p, c := launch(b, "yield-loop.c", flags)
	defer p.Close()
	var n int
	var spent time.Duration
	for n < b.N {
		e, err := c.Begin()
		if err != nil {
			b.Fatal(err)
		}
		// Step 1 creates thread 2; then both threads yield in a loop.
		if err := e.Step(schedule.Step{Thread: 1, Choice: schedule.NoChoice}); err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		tid := 1
		for k := 0; k < 10000 && n < b.N && e.Ended() == nil; k++ {
			if switching {
				tid = 3 - tid
			}
			if err := e.Step(schedule.Step{Thread: tid, Choice: schedule.NoChoice}); err != nil {
				b.Fatal(err)
			}
			if stateful {
				if _, ok := e.State(); !ok {
					b.Fatal("no state")
				}
			}
			n++
		}
		spent += time.Since(t0)
		e.Close()
	}
	b.ReportMetric(float64(spent.Nanoseconds())/float64(n), "ns/transition")
}

// BenchmarkStartExecution measures starting one execution (a fork of the
// fork server up to its first scheduling point) and ending it.
func BenchmarkStartExecution(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p, c := start(b, "deadly-embrace.c")
	defer p.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e, err := c.Begin()
		if err != nil {
			b.Fatal(err)
		}
		e.Close()
	}
}

// BenchmarkManyThreads runs executions of a program whose N threads each
// take one mutex once (examples/c/bench/one-lock.c), with DPOR: 2,000 for N
// from 4 to 32, then fewer (64,000 / N) for N = 100 and 1,000: what an
// execution costs as threads are added (about six transitions per thread:
// its creation, start, lock, unlock, return and join). Besides the rates
// of wall time it reports the transitions per second of the checker's CPU
// time (this process's: the program runs in a process of its own), which
// a loaded machine changes least: where a step costs in proportion to the
// threads, that figure falls as N grows.
//
//	go test -run '^$' -bench ManyThreads -benchtime 3x ./benchmarks
func BenchmarkManyThreads(b *testing.B) {
	for _, n := range []int{4, 8, 16, 32, 100, 1000} {
		b.Run(fmt.Sprintf("threads=%d", n), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			p, c := start(b, filepath.Join("bench", "one-lock.c"), fmt.Sprint(n))
			defer p.Close()
			limit := int64(min(2000, 64000/n))
			var execs, trans int64
			var elapsed time.Duration
			cpu0 := processCPU()
			for b.Loop() {
				res, err := search.Explore(context.Background(), c, search.NewDPOR(), search.Options{MaxDepth: max(1000, 10*n), MaxExecutions: limit})
				if err != nil || len(res.Bugs) > 0 {
					b.Fatalf("%v, bugs %v", err, res.Bugs)
				}
				execs += res.Stats.Executions
				trans += res.Stats.Transitions
				elapsed += res.Stats.Elapsed
			}
			cpu := processCPU() - cpu0
			b.ReportMetric(float64(execs)/elapsed.Seconds(), "execs/s")
			b.ReportMetric(float64(trans)/elapsed.Seconds(), "transitions/s")
			b.ReportMetric(float64(trans)/float64(execs), "transitions/exec")
			if cpu > 0 {
				b.ReportMetric(float64(trans)/cpu.Seconds(), "transitions/cpu-s")
			}
		})
	}
}

// processCPU returns the CPU time (user and system) this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
