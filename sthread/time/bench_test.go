package time_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
	stime "github.com/stdbg/stdbg/sthread/time"
)

// manyTimers returns a checked function that arms n timers far in the
// future, then lets two goroutines take a mutex in turns, work times
// each, while the timers are live, and stops the timers.
func manyTimers(n, work int) func() {
	return func() {
		ts := make([]*stime.Timer, n)
		for i := range ts {
			ts[i] = stime.AfterFunc(time.Hour+time.Duration(i)*time.Millisecond, func() {})
		}
		var mu sthread.Mutex
		done := sthread.MakeChan[int](0)
		n := 0
		turns := func() {
			for range work {
				mu.Lock()
				n++
				mu.Unlock()
			}
		}
		sthread.Go(func() { turns(); done.Send(1) })
		turns()
		done.Recv()
		for _, t := range ts {
			t.Stop()
		}
	}
}

// cpuTime returns the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchTimers runs executions of manyTimers(n, work) with the options
// and reports the steps (transitions) per second of wall time and per
// second of the process's CPU time (which a loaded machine does not
// lower: on a busy machine the wall time is mostly waiting for a CPU).
func benchTimers(b *testing.B, n, work int, opts ...sthread.Option) {
	var trans int64
	var secs float64
	cpu0 := cpuTime()
	for b.Loop() {
		res, err := sthread.Explore(manyTimers(n, work), append(opts, sthread.MaxDepth(0), sthread.NoMinimise())...)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Bugs) > 0 {
			b.Fatalf("bugs %v", res.Bugs)
		}
		trans += res.Stats.Transitions
		secs += res.Stats.Elapsed.Seconds()
	}
	b.ReportMetric(float64(trans)/secs, "steps/s")
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(trans)/cpu.Seconds(), "steps/cpu-s")
	}
}

// BenchmarkManyTimers runs executions of a program with n live timers
// (goroutines of the model waiting for their time) under a random walk:
// what a step costs as the number of live timers grows.
func BenchmarkManyTimers(b *testing.B) {
	for _, n := range []int{0, 10, 100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			benchTimers(b, n, 500, sthread.Strategy(search.NewRandom(1)), sthread.MaxExecutions(2))
		})
	}
}

// BenchmarkManyTimersDPOR is BenchmarkManyTimers under the default search
// of sthread.Explore (DPOR), which keeps every scheduling point of the
// execution under way.
func BenchmarkManyTimersDPOR(b *testing.B) {
	for _, n := range []int{0, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchTimers(b, n, 200, sthread.MaxExecutions(3)) })
	}
}
