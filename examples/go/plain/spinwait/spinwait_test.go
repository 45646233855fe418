// Package spinwait holds tests that wait by spinning: on an atomic flag
// (correct), and a bounded retry whose count of tries lives in a closure
// (a bug that needs the worker to try three times before the job is
// posted). The first ends with a verdict because an iteration that changed
// nothing waits for a write to what it read (docs/spin.md); the second keeps
// its bug because its iterations change the count.
package spinwait

import (
	"os"
	"runtime"
	"sync/atomic"
	"testing"
)

// TestPublish: a goroutine publishes a value and raises ready; the test
// spins until it sees ready, then reads the value.
func TestPublish(t *testing.T) {
	var ready atomic.Bool
	var value int
	go func() {
		value = 42
		ready.Store(true)
	}()
	for !ready.Load() {
	}
	if value != 42 {
		t.Fatalf("read %d, want 42", value)
	}
}

// TestRetryGivesUp: a worker looks for the job three times, yielding
// between tries; the count of tries is a variable that the closure it
// calls increments. It gives up if the job was not posted by then. It is
// skipped outside stdbg (STDBG_ZOO unset): under go test it fails only in
// rare schedules.
//
//	STDBG_ZOO=1 stdbg find -run TestRetryGivesUp ./examples/go/plain/spinwait
func TestRetryGivesUp(t *testing.T) {
	if os.Getenv("STDBG_ZOO") == "" {
		t.Skip("a bug shown by stdbg find (set STDBG_ZOO=1)")
	}
	var posted atomic.Bool
	tries := 0
	try := func() bool {
		tries++
		return posted.Load()
	}
	done := make(chan bool)
	go func() {
		for !try() {
			if tries == 3 {
				done <- false
				return
			}
			runtime.Gosched()
		}
		done <- true
	}()
	posted.Store(true)
	if !<-done {
		t.Fatal("the worker gave up before the job was posted")
	}
}
