package executor_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/model/wire"
)

// counterRuntime simulates examples/c/bench/counter.c in process: main
// creates the workers and joins them, each worker takes one mutex rounds
// times. It answers at once and allocates nothing per step, so that a
// search over it measures the checker's and the search's own work.
type counterRuntime struct {
	workers, rounds int
	main, worker    []syncmodel.Op
	pos             []int // per thread id
	pend            []wire.Pending
	evs             []wire.Event
	frames          []uint64
}

func newCounterRuntime(workers, rounds int) *counterRuntime {
	r := &counterRuntime{workers: workers, rounds: rounds, frames: []uint64{0x401000}}
	for range workers {
		r.main = append(r.main, syncmodel.Op{Kind: syncmodel.ThreadCreate, API: syncmodel.APIPthreadCreate})
	}
	for i := range workers {
		r.main = append(r.main, syncmodel.Op{Kind: syncmodel.ThreadJoin, API: syncmodel.APIPthreadJoin, Arg: int64(i + 2)})
	}
	r.main = append(r.main, syncmodel.Op{Kind: syncmodel.Exit})
	r.worker = append(r.worker, syncmodel.Op{Kind: syncmodel.ThreadStart})
	for range rounds {
		r.worker = append(r.worker, syncmodel.Op{Kind: syncmodel.MutexLock, Obj: 0x4040},
			syncmodel.Op{Kind: syncmodel.MutexUnlock, Obj: 0x4040})
	}
	r.worker = append(r.worker, syncmodel.Op{Kind: syncmodel.ThreadExit})
	r.pos = make([]int, workers+2)
	r.pend = make([]wire.Pending, workers+2)
	return r
}

func (r *counterRuntime) script(tid int) []syncmodel.Op {
	if tid == 1 {
		return r.main
	}
	return r.worker
}

func (r *counterRuntime) report(tid int) {
	p := &r.pend[tid]
	*p = wire.Pending{Tid: tid, Op: r.script(tid)[r.pos[tid]], Frames: r.frames}
	r.evs = append(r.evs, p)
}

func (r *counterRuntime) Begin() ([]wire.Event, error) {
	clear(r.pos)
	r.evs = r.evs[:0]
	r.report(1)
	return r.evs, nil
}

func (r *counterRuntime) Resume(tid int, code int64) ([]wire.Event, error) {
	r.evs = r.evs[:0]
	op := r.script(tid)[r.pos[tid]]
	r.pos[tid]++
	switch op.Kind {
	case syncmodel.ThreadCreate:
		r.report(int(code))
	case syncmodel.ThreadExit:
		return r.evs, nil
	case syncmodel.Exit:
		return append(r.evs, wire.Died{Description: "exited with status 0"}), nil
	}
	r.report(tid)
	return r.evs, nil
}

func (r *counterRuntime) End(bool) {}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCheckerCounter measures what the checker and the search spend
// per execution of an exhaustive DPOR search of the counter, without a
// program: the model of each step, the bookkeeping of the search, DPOR's
// race analysis. The program's side is what BenchmarkThroughput adds
// (benchmarks/). cpu-ns/execution is the process's CPU time, which a busy
// machine does not inflate as it does the wall time:
//
//	go test -run '^$' -bench CheckerCounter -benchtime 5x ./engine/executor
func BenchmarkCheckerCounter(b *testing.B) {
	for _, c := range []struct{ workers, rounds int }{{3, 3}, {4, 2}} {
		b.Run(fmt.Sprintf("%dx%d", c.workers, c.rounds), func(b *testing.B) {
			rt := newCounterRuntime(c.workers, c.rounds)
			ch := executor.New(rt, executor.Options{FastExit: true})
			var execs, trans int64
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				res, err := search.Explore(context.Background(), ch, search.NewDPOR(), search.Options{All: true})
				if err != nil || !res.Complete || len(res.Bugs) > 0 {
					b.Fatalf("%v, complete %v, bugs %v", err, res.Complete, res.Bugs)
				}
				execs += res.Stats.Executions
				trans += res.Stats.Transitions
			}
			cpu := cpuTime() - cpu0
			b.ReportMetric(float64(execs)/float64(b.N), "executions/op")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(execs), "cpu-ns/execution")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(trans), "cpu-ns/transition")
		})
	}
}

// BenchmarkCheckerManyThreads measures the checker's work per step as the
// threads grow: the counter with N workers of one round each, searched by
// DPOR up to an execution limit, the thread list kept by a pass over every
// thread at every step (pass) or by the index of what each thread's status
// depends on (index; the default from 8 live threads):
//
//	go test -run '^$' -bench CheckerManyThreads -benchtime 3x ./engine/executor
func BenchmarkCheckerManyThreads(b *testing.B) {
	for _, n := range []int{4, 8, 16, 32, 100, 1000} {
		for _, way := range []struct {
			name string
			from int
		}{{"pass", 1 << 30}, {"index", 1}} {
			b.Run(fmt.Sprintf("threads=%d/%s", n, way.name), func(b *testing.B) {
				rt := newCounterRuntime(n, 1)
				ch := executor.New(rt, executor.Options{FastExit: true})
				executor.SetIncrementalFrom(ch, way.from)
				limit := int64(max(10, 20_000/n))
				var execs, trans int64
				cpu0 := cpuTime()
				for b.Loop() {
					res, err := search.Explore(context.Background(), ch, search.NewDPOR(), search.Options{MaxExecutions: limit, MaxDepth: 10 * n})
					if err != nil || len(res.Bugs) > 0 {
						b.Fatalf("%v, bugs %v", err, res.Bugs)
					}
					execs += res.Stats.Executions
					trans += res.Stats.Transitions
				}
				cpu := cpuTime() - cpu0
				b.ReportMetric(float64(trans)/float64(execs), "transitions/execution")
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(trans), "cpu-ns/transition")
			})
		}
	}
}
