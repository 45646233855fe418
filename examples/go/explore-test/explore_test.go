// Package exploretest holds a test that searches with sthread.Explore on
// its own, inside the test: stdbg find -run cannot drive it, and says what
// to do instead (call sthread.Check).
package exploretest

import (
	"testing"

	"github.com/stdbg/stdbg/sthread"
)

func TestExplore(t *testing.T) {
	res, err := sthread.Explore(func() {
		var mu sthread.Mutex
		n := 0
		sthread.Go(func() { mu.Lock(); n++; mu.Unlock() })
		mu.Lock()
		n++
		mu.Unlock()
	})
	if err != nil || len(res.Bugs) > 0 {
		t.Fatal(err, res.Bugs)
	}
}
