package raceparity

import (
	"errors"
	"os"
	"sync"
	"testing"
)

// racy skips a test whose data race is the point: go test -race reports
// it, by chance of the scheduling (and a map written by two goroutines at
// once may even crash a plain run). STDBG_ZOO=1 runs it, as stdbg find and
// the command line's parity test (frontend/cli/e2e/gotest) do.
func racy(t *testing.T) {
	t.Helper()
	if os.Getenv("STDBG_ZOO") == "" {
		t.Skip("a data race shown by go test -race and stdbg find (set STDBG_ZOO=1)")
	}
}

// TestSelectOnClearedField: Wait's select reads w.ch while Stop, in the
// test's goroutine, writes it after closing the channel. Nothing orders the
// read before the write: go test -race reports it on a plain run.
func TestSelectOnClearedField(t *testing.T) {
	racy(t)
	w := NewWatcher()
	done := make(chan bool)
	go func() {
		w.Wait()
		done <- true
	}()
	w.Stop()
	<-done
}

// TestRangeCallbackCounter: a goroutine's Range callback increments a
// counter once it sees the key the test stored; the test reads the counter
// without waiting for it. When the Store comes before the Range, the
// increment and the read race.
func TestRangeCallbackCounter(t *testing.T) {
	racy(t)
	var r Registry
	done := make(chan bool)
	go func() {
		r.Scan()
		done <- true
	}()
	r.Add("a")
	_ = r.Seen()
	<-done
}

// TestLazyInit: a goroutine reads the map field without the lock while the
// test, calling the same methods, writes it under the lock. The race is in
// the very first schedule: stdbg once missed it in the first execution of
// a process, where an internal cache of sthread, shared by the two
// goroutines' identical calls, ordered them for the detector.
func TestLazyInit(t *testing.T) {
	racy(t)
	var n Names
	done := make(chan bool)
	go func() {
		n.Add("a")
		done <- true
	}()
	n.Add("b")
	<-done
}

// TestStatusReadAfterGo: the closure a go statement starts writes a
// variable it captured; the test reads it right after the go statement,
// before it waits. Whether the goroutine starts at once or late, the write
// and the read race.
func TestStatusReadAfterGo(t *testing.T) {
	racy(t)
	status := "idle"
	done := make(chan bool)
	go func() {
		status = "running"
		done <- true
	}()
	if status == "stopped" {
		t.Error("stopped before it started")
	}
	<-done
}

// errNotFound is what the lookups of the error tests fail with.
var errNotFound = errors.New("not found")

// lookup fails.
func lookup(string) error { return errNotFound }

// TestErrCheckedBeforeReceive: a goroutine assigns the err its closure
// captured, then reports on a channel; the test checks err before it
// receives.
func TestErrCheckedBeforeReceive(t *testing.T) {
	racy(t)
	var err error
	done := make(chan struct{})
	go func() {
		err = lookup("k")
		done <- struct{}{}
	}()
	if errors.Is(err, errNotFound) {
		t.Log("failed early")
	}
	<-done
}

// TestMapWrittenFromGoroutines: two goroutines store into one map without
// a lock.
func TestMapWrittenFromGoroutines(t *testing.T) {
	racy(t)
	seen := map[string]int{}
	var wg sync.WaitGroup
	for _, k := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seen[k] = len(k)
		}()
	}
	wg.Wait()
}

// TestAppendFromGoroutines: goroutines append their results to one slice
// without a lock.
func TestAppendFromGoroutines(t *testing.T) {
	racy(t)
	var results []int
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results = append(results, i*i)
		}()
	}
	wg.Wait()
	if len(results) > 2 {
		t.Errorf("%d results from 2 goroutines", len(results))
	}
}

// TestFieldWrittenAfterUnlock: Close drops the buffer after its unlock; a
// goroutine's Pending, under the lock, reads it.
func TestFieldWrittenAfterUnlock(t *testing.T) {
	racy(t)
	s := NewSession(8)
	done := make(chan int)
	go func() { done <- s.Pending() }()
	s.Close()
	<-done
}

// TestErrSetAfterDone: the goroutine says it is done before it assigns
// err; the test waits, then checks err as its last act. In the schedules
// where the assignment comes first, the race is found in the test's last
// transition, where the testing package also marks the test failed: it is
// a data race all the same, with both stacks.
func TestErrSetAfterDone(t *testing.T) {
	racy(t)
	var err error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		wg.Done()
		err = lookup("k")
	}()
	wg.Wait()
	if err != nil {
		t.Log("lookup failed")
	}
}
