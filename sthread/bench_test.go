package sthread_test

import (
	"sync"
	"testing"

	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/sync/atomic"
)

// Pass-through cost: sthread primitives outside Check against the real
// ones.

func BenchmarkMutexSync(b *testing.B) {
	var mu sync.Mutex
	n := 0
	for b.Loop() {
		mu.Lock()
		n++
		mu.Unlock()
	}
}

func BenchmarkMutexSthread(b *testing.B) {
	var mu sthread.Mutex
	n := 0
	for b.Loop() {
		mu.Lock()
		n++
		mu.Unlock()
	}
}

func BenchmarkChanBuffered(b *testing.B) {
	ch := make(chan int, 1)
	for b.Loop() {
		ch <- 1
		<-ch
	}
}

func BenchmarkChanSthread(b *testing.B) {
	ch := sthread.MakeChan[int](1)
	for b.Loop() {
		ch.Send(1)
		ch.Recv()
	}
}

func BenchmarkWaitGroupSync(b *testing.B) {
	var wg sync.WaitGroup
	for b.Loop() {
		wg.Add(1)
		wg.Done()
		wg.Wait()
	}
}

func BenchmarkWaitGroupSthread(b *testing.B) {
	var wg sthread.WaitGroup
	for b.Loop() {
		wg.Add(1)
		wg.Done()
		wg.Wait()
	}
}

func BenchmarkAtomicSthread(b *testing.B) {
	var n atomic.Int64
	for b.Loop() {
		n.Add(1)
	}
}

// In-process checking speed: every schedule of the program, again and
// again; transitions/s and executions/s are reported.

// pipeline3 passes values through three goroutines: a producer, a squarer
// and the consumer (the checked function).
func pipeline3() {
	in := sthread.MakeChan[int](1)
	out := sthread.MakeChan[int](1)
	sthread.Go(func() {
		for i := 1; i <= 2; i++ {
			in.Send(i)
		}
		in.Close()
	})
	sthread.Go(func() {
		for v := range in.All() {
			out.Send(v * v)
		}
		out.Close()
	})
	sum := 0
	for v := range out.All() {
		sum += v
	}
	sthread.Assert(sum == 5, "wrong sum")
}

func benchExplore(b *testing.B, f func(), opts ...sthread.Option) {
	var trans, execs int64
	var secs float64
	for b.Loop() {
		res, err := sthread.Explore(f, append(opts, sthread.All())...)
		if err != nil {
			b.Fatal(err)
		}
		trans += res.Stats.Transitions
		execs += res.Stats.Executions
		secs += res.Stats.Elapsed.Seconds()
	}
	b.ReportMetric(float64(trans)/secs, "transitions/s")
	b.ReportMetric(float64(execs)/secs, "executions/s")
	b.ReportMetric(float64(execs)/float64(b.N), "executions/op")
}

func BenchmarkCheckDeadlyEmbrace(b *testing.B) { benchExplore(b, deadlyEmbrace) }

func BenchmarkCheckPipeline(b *testing.B) {
	benchExplore(b, pipeline3, sthread.MaxExecutions(20000))
}
