package kernels

import (
	"context"
	"sync"
	"testing"
	"time"
)

// A lookup with a deadline whose worker computes its answer at once: when
// the deadline fires before the worker even started, the worker blocks for
// ever on its unbuffered send (a client library's timeout around a local
// call).
func TestTimeoutLeaksFastWorker(t *testing.T) {
	zoo(t)
	answer := make(chan int)
	go func() { answer <- len("cached") }()
	select {
	case <-answer:
	case <-time.After(10 * time.Millisecond):
		t.Log("lookup timed out")
	}
}

// An entry with a time to live, removed by a timer's callback: the test
// reads it, then stops the timer, assuming the callback cannot have run
// yet (a session store's expiry).
func TestExpiryBeforeStop(t *testing.T) {
	zoo(t)
	var mu sync.Mutex
	sessions := map[string]bool{"alice": true}
	expiry := time.AfterFunc(5*time.Millisecond, func() {
		mu.Lock()
		delete(sessions, "alice")
		mu.Unlock()
	})
	mu.Lock()
	ok := sessions["alice"]
	mu.Unlock()
	expiry.Stop()
	if !ok {
		t.Fatal("the session expired before it was used")
	}
}

// A retry loop started by the test and never waited for: after its back-off
// it logs to a test that has returned, and go test panics (a client whose
// reconnect goroutine outlives the test).
func TestRetryLogsAfterTheTest(t *testing.T) {
	zoo(t)
	go func() {
		time.Sleep(10 * time.Millisecond)
		t.Logf("reconnecting")
	}()
}

// A timer's callback that logs to the test, never stopped: it fires after
// the test returned.
func TestTimerLogsAfterTheTest(t *testing.T) {
	zoo(t)
	time.AfterFunc(5*time.Millisecond, func() { t.Log("flushing the buffer") })
}

// A job cancelled before its worker started: the worker's send finds no
// receiver any more (a request handler whose client went away).
func TestCancelBeforeTheWorkerStarts(t *testing.T) {
	zoo(t)
	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan string)
	go func() { result <- "done" }()
	cancel()
	select {
	case r := <-result:
		_ = r
	case <-ctx.Done():
	}
}
