package kernels

import (
	"sync/atomic"
	"testing"
	"time"
)

// A worker polls for a result until its timer fires, and then reports
// that it gave up on an unbuffered channel; the test waits for the report
// only until its own, shorter, timeout and returns: the worker's report
// is never received, and it blocks for ever (a leak). Its loop never
// blocks: the loop's turns change nothing until the timer fires, and the
// worker waits for that (docs/spin.md) instead of polling on to the depth
// bound in every execution.
func TestPollerOutlivesTheTest(t *testing.T) {
	zoo(t)
	var result atomic.Int32
	report := make(chan int32)
	go func() {
		timer := time.NewTimer(10 * time.Millisecond)
		for {
			select {
			case <-timer.C:
				report <- -1
				return
			default:
			}
			if v := result.Load(); v != 0 {
				report <- v
				return
			}
		}
	}()
	select {
	case v := <-report:
		t.Logf("report %d", v)
	case <-time.After(5 * time.Millisecond):
	}
}

// Two workers count themselves in; the test spins until both did, then
// hands out two jobs. A worker that sees itself counted last takes no
// job, so the test's second send waits for ever. The bug comes after a
// spin of the test, whose turns change nothing: it waits for the
// workers' counts instead of running to the depth bound first.
func TestJobsAfterSpinWait(t *testing.T) {
	zoo(t)
	var started atomic.Int32
	jobs := make(chan int)
	for range 2 {
		go func() {
			if started.Add(1) == 2 {
				return // the last to start forgets its job
			}
			<-jobs
		}()
	}
	for started.Load() < 2 {
	}
	jobs <- 1
	jobs <- 2
}

// A test starts a dial and polls for its connection, looking at its
// deadline between polls; the dial is quick, so the deadline seems
// generous, but a dialer that is not scheduled before the deadline makes
// the test fail (a flaky test on a loaded machine). The loop never
// blocks, and its turns change nothing until the dial or the timer: the
// test waits for either (docs/spin.md) instead of polling on to the depth
// bound in every execution.
func TestPollTimesOutUnderLoad(t *testing.T) {
	zoo(t)
	var conn atomic.Pointer[string]
	go func() {
		addr := "127.0.0.1:8080"
		conn.Store(&addr)
	}()
	deadline := time.NewTimer(50 * time.Millisecond)
	defer deadline.Stop()
	for conn.Load() == nil {
		select {
		case <-deadline.C:
			t.Fatal("no connection within 50ms")
		default:
		}
	}
}
