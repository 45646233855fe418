// Package loopvar holds tests of a module at go 1.21, whose loop variables
// are shared by all the iterations of a loop (Go 1.22 made them one per
// iteration, for modules at go 1.22 or later): goroutines started in a
// loop that read its variables race with the loop's next increment. stdbg
// must build the module's code as go test does, under the language version
// of its go.mod, to see these races and to pass the tests that rely on the
// shared variable.
package loopvar

import (
	"os"
	"sync"
	"testing"
)

// racy skips a test whose data race is the point unless STDBG_ZOO is set:
// go test -race reports it by chance of the scheduling.
func racy(t *testing.T) {
	t.Helper()
	if os.Getenv("STDBG_ZOO") == "" {
		t.Skip("a data race shown by go test -race and stdbg find (set STDBG_ZOO=1)")
	}
}

// record keeps what the goroutines saw.
type record struct {
	mu   sync.Mutex
	seen []string
}

func (r *record) add(i int, name string) {
	r.mu.Lock()
	r.seen = append(r.seen, name[:i%len(name)+1])
	r.mu.Unlock()
}

// TestRangeLoopGoroutines: the goroutines read i and n, which the range
// loop writes again for its next iteration.
func TestRangeLoopGoroutines(t *testing.T) {
	racy(t)
	var r record
	var wg sync.WaitGroup
	for i, n := range []string{"ada", "bob"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.add(i, n)
		}()
	}
	wg.Wait()
}

// TestCountingLoopGoroutines: the goroutines read i, which the loop's post
// statement increments.
func TestCountingLoopGoroutines(t *testing.T) {
	racy(t)
	var r record
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.add(i, "xyz")
		}()
	}
	wg.Wait()
}

// TestRangeLoopGoroutinesCopied: each iteration copies the loop variables
// before its goroutine starts, as code for go 1.21 must.
func TestRangeLoopGoroutinesCopied(t *testing.T) {
	var r record
	var wg sync.WaitGroup
	for i, n := range []string{"ada", "bob"} {
		i, n := i, n
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.add(i, n)
		}()
	}
	wg.Wait()
	if len(r.seen) != 2 {
		t.Errorf("seen %v", r.seen)
	}
}

// TestSharedLoopVariable relies on the shared variable: every closure made
// in the loop returns its final value. Under Go 1.22's semantics the first
// would return 0.
func TestSharedLoopVariable(t *testing.T) {
	var mu sync.Mutex
	var fs []func() int
	for i := 0; i < 3; i++ {
		fs = append(fs, func() int {
			mu.Lock()
			defer mu.Unlock()
			return i
		})
	}
	if got := fs[0](); got != 3 {
		t.Errorf("fs[0]() = %d, want 3: the loop variable is one per iteration", got)
	}
}
