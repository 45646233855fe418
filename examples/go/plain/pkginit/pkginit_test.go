package pkginit

import (
	"fmt"
	"testing"
)

// TestAsk asks the server that the package started as it initialised:
// stdbg cannot judge it (the server runs outside its control).
func TestAsk(t *testing.T) {
	if v := Ask(); v != 42 {
		t.Errorf("the answer is %d", v)
	}
}

// TestReady waits on a channel closed as the package initialised.
func TestReady(t *testing.T) {
	Ready()
}

// TestStop cancels a context made as the package initialised.
func TestStop(t *testing.T) {
	Stop()
}

// TestPrint formats in two goroutines of its own while the server that the
// package started runs: under the race detector, stdbg's descriptions of
// that server (made as the test runs) must not look like a race with the
// program's use of package fmt.
func TestPrint(t *testing.T) {
	done := make(chan string)
	for i := range 2 {
		go func() { done <- fmt.Sprint("answer ", i) }()
	}
	for range 2 {
		if s := <-done; s != "answer 0" && s != "answer 1" {
			t.Errorf("got %q", s)
		}
	}
}
