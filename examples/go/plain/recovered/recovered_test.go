package recovered

import (
	"errors"
	"os"
	"sync"
	"testing"
)

// TestSendAfterOwnClose: the test closes its channel, then a send finds it
// closed and recovers; the value was delivered before.
func TestSendAfterOwnClose(t *testing.T) {
	c := make(chan int, 1)
	if err := TrySend(c, 1); err != nil {
		t.Fatalf("first send: %v", err)
	}
	close(c)
	if err := TrySend(c, 2); !errors.Is(err, ErrClosed) {
		t.Fatalf("send after close: %v, want ErrClosed", err)
	}
	if v := <-c; v != 1 {
		t.Errorf("received %d, want 1", v)
	}
}

// TestCloseTwice: the second close of a channel, and a close of a nil
// one, recover.
func TestCloseTwice(t *testing.T) {
	done := make(chan int)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-done
	}()
	if err := TryClose(done); err != nil {
		t.Fatalf("first close: %v", err)
	}
	wg.Wait()
	if err := TryClose(done); !errors.Is(err, ErrClosed) {
		t.Errorf("second close: %v, want ErrClosed", err)
	}
	if err := TryClose(nil); !errors.Is(err, ErrClosed) {
		t.Errorf("close of nil: %v, want ErrClosed", err)
	}
}

// TestDoneTooOften: a worker calls Done once too often and recovers; Go
// leaves the counter at -1, so the test's Add brings it back to zero.
func TestDoneTooOften(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	result := make(chan bool, 1)
	go func() {
		wg.Done()
		result <- TryDone(&wg)
	}()
	if <-result {
		t.Fatal("the second Done did not panic")
	}
	wg.Add(1)
	wg.Wait()
}

// TestRaceAfterRecovery: after a recovered send on a closed channel, two
// goroutines bump a counter without a lock. stdbg stopped at the send,
// reported as a misuse, and never saw the race that go test -race reports.
func TestRaceAfterRecovery(t *testing.T) {
	if os.Getenv("STDBG_ZOO") == "" {
		t.Skip("a bug shown by stdbg find (set STDBG_ZOO=1)")
	}
	c := make(chan int)
	close(c)
	if err := TrySend(c, 1); !errors.Is(err, ErrClosed) {
		t.Fatalf("send: %v", err)
	}
	n := 0
	done := make(chan bool)
	go func() {
		n++ // unordered with the test's increment
		done <- true
	}()
	n++
	<-done
}
