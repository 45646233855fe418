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
