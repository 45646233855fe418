package latelog

import (
	"os"
	"sync"
	"testing"
)

// TestProgress logs the copier's progress but does not wait for it: when
// the test returns first, the copier's t.Logf makes go test panic ("Log in
// goroutine after TestProgress has completed"), now and then.
func TestProgress(t *testing.T) {
	if os.Getenv("STDBG_ZOO") == "" {
		t.Skip("a bug shown by stdbg find (set STDBG_ZOO=1)")
	}
	var c Copier
	c.Start([]string{"a", "b"}, func(n string) { t.Logf("copied %s", n) })
	if len(c.Copied()) > 2 {
		t.Errorf("copied %v", c.Copied())
	}
}

// TestProgressWaits waits until the copier is done before returning.
func TestProgressWaits(t *testing.T) {
	var c Copier
	var wg sync.WaitGroup
	wg.Add(2)
	c.Start([]string{"a", "b"}, func(n string) {
		t.Logf("copied %s", n)
		wg.Done()
	})
	wg.Wait()
	if got := c.Copied(); len(got) != 2 {
		t.Errorf("copied %v", got)
	}
}

// TestProgressCountsFirst counts the copies before it logs them: once
// the last Done let the test return, the copier's t.Logf can come after
// the end of the test, and go test panics ("Log in goroutine after
// TestProgressCountsFirst has completed"). The log came in the same step as
// the Done, so stdbg never ran the test's end between the two and said
// "exhaustive" after one execution.
func TestProgressCountsFirst(t *testing.T) {
	if os.Getenv("STDBG_ZOO") == "" {
		t.Skip("a bug shown by stdbg find (set STDBG_ZOO=1)")
	}
	var c Copier
	var wg sync.WaitGroup
	wg.Add(2)
	c.Start([]string{"a", "b"}, func(n string) {
		wg.Done()
		t.Logf("copied %s", n)
	})
	wg.Wait()
}

// TestProgressCountsFirstInSubtest is the same in a subtest that is the
// last thing its test does: go test panics ("Log in goroutine after
// TestProgressCountsFirstInSubtest/copy has completed").
func TestProgressCountsFirstInSubtest(t *testing.T) {
	if os.Getenv("STDBG_ZOO") == "" {
		t.Skip("a bug shown by stdbg find (set STDBG_ZOO=1)")
	}
	t.Run("copy", func(t *testing.T) {
		var c Copier
		var wg sync.WaitGroup
		wg.Add(2)
		c.Start([]string{"a", "b"}, func(n string) {
			wg.Done()
			t.Logf("copied %s", n)
		})
		wg.Wait()
	})
}

// TestSubtestLogsToItsParent: the copier logs with the subtest's t after
// the subtest may have returned, but its parent waits until the copier is
// done: go test writes the line in the parent's output (only a failure
// there, t.Error, panics), and neither go test nor stdbg reports anything.
func TestSubtestLogsToItsParent(t *testing.T) {
	done := make(chan struct{})
	t.Run("copy", func(t *testing.T) {
		var c Copier
		var wg sync.WaitGroup
		wg.Add(2)
		c.Start([]string{"a", "b"}, func(n string) {
			wg.Done()
			t.Logf("copied %s", n)
			if n == "b" {
				close(done)
			}
		})
		wg.Wait()
	})
	<-done
}
