package raceparity

import (
	"errors"
	"sync"
	"testing"
)

// The race-free twins of the racy tests: the same shapes, synchronised as
// Go's memory model asks. go test -race reports nothing in them, and
// neither may stdbg find, whatever the schedule.

// TestStatusReadAfterReceive: the closure writes the variable, then sends;
// the test reads it after the receive. The schedule that starts the
// goroutine right after the go statement parks its send before the test
// receives: the send still happens before the receive completes.
func TestStatusReadAfterReceive(t *testing.T) {
	status := "idle"
	done := make(chan bool)
	go func() {
		status = "running"
		done <- true
	}()
	<-done
	if status != "running" {
		t.Errorf("status %q after the goroutine reported", status)
	}
}

// TestErrCheckedAfterReceive: the goroutine assigns the captured err, then
// sends on an unbuffered channel; the test receives, then checks err.
func TestErrCheckedAfterReceive(t *testing.T) {
	var err error
	done := make(chan struct{})
	go func() {
		err = lookup("k")
		done <- struct{}{}
	}()
	<-done
	if !errors.Is(err, errNotFound) {
		t.Errorf("err = %v after the goroutine reported", err)
	}
}

// TestMapWrittenUnderLock: the goroutines store into the map under a
// mutex; the test reads it after Wait.
func TestMapWrittenUnderLock(t *testing.T) {
	seen := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, k := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			seen[k] = len(k)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(seen) != 2 {
		t.Errorf("%d keys, want 2", len(seen))
	}
}

// TestAppendUnderLock: the goroutines append under a mutex.
func TestAppendUnderLock(t *testing.T) {
	var results []int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			results = append(results, i*i)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(results) != 2 {
		t.Errorf("%d results, want 2", len(results))
	}
}

// TestResultsByIndex: each goroutine writes its own element of a slice made
// before they start: different elements are different variables.
func TestResultsByIndex(t *testing.T) {
	results := make([]int, 2)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = i * i
		}()
	}
	wg.Wait()
	if results[1] != 1 {
		t.Errorf("results = %v", results)
	}
}

// TestFieldWrittenBeforeUnlock: CloseLocked drops the buffer under the
// lock that Pending takes.
func TestFieldWrittenBeforeUnlock(t *testing.T) {
	s := NewSession(8)
	done := make(chan int)
	go func() { done <- s.Pending() }()
	s.CloseLocked()
	if n := <-done; n != 0 && n != 8 {
		t.Errorf("Pending = %d", n)
	}
}

// TestBufferedHandOff: the goroutine writes data, then sends on a full
// buffered channel and parks; the test's first receive moves the parked
// value into the buffer, and its second receive takes it, possibly before
// the goroutine runs again. The send happens before that receive
// completes, so data is ordered before the test's read.
func TestBufferedHandOff(t *testing.T) {
	ch := make(chan int, 1)
	ch <- 0
	data := 0
	done := make(chan bool)
	go func() {
		data = 42
		ch <- 1
		done <- true
	}()
	<-ch
	if v := <-ch; v == 1 && data != 42 {
		t.Errorf("data = %d after the value sent after it", data)
	}
	<-done
}

// TestSelectReceiverFirst: the goroutine writes its request, then waits in
// a select for a value on an unbuffered channel (or for a taker of its
// own, which never comes); the test's send completes only after that
// receive began, so the request is ordered before the test's read.
func TestSelectReceiverFirst(t *testing.T) {
	request := ""
	ch := make(chan int)
	unread := make(chan int)
	done := make(chan bool)
	go func() {
		request = "ping"
		select {
		case <-ch:
		case unread <- 1:
		}
		done <- true
	}()
	ch <- 1
	if request != "ping" {
		t.Errorf("request %q after the goroutine's receive", request)
	}
	<-done
}
