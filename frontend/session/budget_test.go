package session

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// slowStartModule is a module of one plain Go test whose package takes
// longer to initialise than the budget of its search.
var slowStartModule = map[string]string{
	"go.mod": "module example.com/slowstart\n\ngo 1.22\n",
	"slow_test.go": `package slowstart

import (
	"sync"
	"testing"
	"time"
)

func init() { time.Sleep(1500 * time.Millisecond) }

func TestTwo(t *testing.T) {
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			n++
			mu.Unlock()
		}()
	}
	wg.Wait()
}
`,
}

// The budget is the search's: the time the target takes to start (here,
// to initialise its package) is not taken from it. The budget's clock
// started before the target did, and a search inside a target that took
// longer to start than the budget ran no execution at all.
func TestBudgetStartsWithTheSearch(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir := t.TempDir()
	for name, text := range slowStartModule {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := findWithin(t, dir, "TestTwo", false, time.Second)
	if !got.inTarget || got.executions == 0 {
		t.Errorf("in the target %v, %d executions (budget spent %v); want a search inside the target that ran",
			got.inTarget, got.executions, got.budgetSpent)
	}
}
