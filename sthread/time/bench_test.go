package time_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stdbg/stdbg/search"
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
		turns := func() {
			for range work {
				mu.Lock()
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

// BenchmarkManyTimers runs executions of a program with n live timers
// (goroutines of the model waiting for their time) and reports the steps
// (transitions) per second: what a step costs as the number of live
// timers grows.
func BenchmarkManyTimers(b *testing.B) {
	for _, n := range []int{0, 10, 100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var trans int64
			var secs float64
			for b.Loop() {
				res, err := sthread.Explore(manyTimers(n, 500), sthread.Strategy(search.NewRandom(1)), sthread.MaxExecutions(2),
					sthread.MaxDepth(0), sthread.NoMinimise())
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Bugs) > 0 || res.Stats.Executions != 2 {
					b.Fatalf("%d executions, bugs %v", res.Stats.Executions, res.Bugs)
				}
				trans += res.Stats.Transitions
				secs += res.Stats.Elapsed.Seconds()
			}
			b.ReportMetric(float64(trans)/secs, "steps/s")
		})
	}
}

// BenchmarkManyTimersDPOR is BenchmarkManyTimers under the default search
// of sthread.Explore (DPOR), which keeps every scheduling point of the
// execution under way.
func BenchmarkManyTimersDPOR(b *testing.B) {
	for _, n := range []int{0, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var trans int64
			var secs float64
			for b.Loop() {
				res, err := sthread.Explore(manyTimers(n, 200), sthread.MaxExecutions(3), sthread.MaxDepth(0), sthread.NoMinimise())
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
		})
	}
}
