package atomic_test

import (
	"context"
	"testing"
	"unsafe"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/engine/search/searchtest"
	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/sync/atomic"
)

// twoOps returns a program whose two goroutines do one operation each,
// a on x and b on y, and wait for each other's end through a WaitGroup.
func twoOps(a, b func(p *int64), shared bool) func() {
	return func() {
		var x, y int64
		py := &y
		if shared {
			py = &x
		}
		var wg sthread.WaitGroup
		wg.Add(2)
		sthread.Go(func() { defer wg.Done(); a(&x) })
		sthread.Go(func() { defer wg.Done(); b(py) })
		wg.Wait()
	}
}

// TestAtomicFuncsDependence checks what the functions replacing sync/atomic
// report to the checker: two operations on one address are dependent (DPOR
// explores both orders) unless both load; on different addresses they are
// independent.
func TestAtomicFuncsDependence(t *testing.T) {
	load := func(p *int64) { atomic.LoadInt64(p) }
	store := func(p *int64) { atomic.StoreInt64(p, 1) }
	add := func(p *int64) { atomic.AddInt64(p, 1) }
	and := func(p *int64) { atomic.AndInt64(p, 1) }
	cas := func(p *int64) { atomic.CompareAndSwapInt64(p, 0, 1) }
	ptr := func(p *int64) {
		atomic.LoadPointer((*unsafe.Pointer)(unsafe.Pointer(p)))
	}
	_, base := countTraces(t, twoOps(load, load, false), search.NewDPOR())
	tests := []struct {
		name      string
		a, b      func(*int64)
		dependent bool
	}{
		{"load load", load, load, false},
		{"load pointer-load", load, ptr, false},
		{"load store", load, store, true},
		{"add add", add, add, true},
		{"and load", and, load, true},
		{"cas store", cas, store, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diff := countTraces(t, twoOps(tt.a, tt.b, false), search.NewDPOR())
			_, same := countTraces(t, twoOps(tt.a, tt.b, true), search.NewDPOR())
			if diff.Stats.Executions != base.Stats.Executions {
				t.Errorf("different addresses: %d executions, want %d", diff.Stats.Executions, base.Stats.Executions)
			}
			if got := same.Stats.Executions > diff.Stats.Executions; got != tt.dependent {
				t.Errorf("same address: %d executions, different: %d; want dependent %v",
					same.Stats.Executions, diff.Stats.Executions, tt.dependent)
			}
		})
	}
}

// TestAtomicLostUpdate checks that a lost update through atomic loads and
// stores is found, and that AtomicAddInt64 and AtomicUint64 lose nothing.
func TestAtomicLostUpdate(t *testing.T) {
	tests := []struct {
		name string
		inc  func(n *int64, u *atomic.Uint64)
		bug  bool
	}{
		{"load then store", func(n *int64, _ *atomic.Uint64) {
			atomic.StoreInt64(n, atomic.LoadInt64(n)+1)
		}, true},
		{"add", func(n *int64, _ *atomic.Uint64) { atomic.AddInt64(n, 1) }, false},
		{"Uint64 load then CAS loop", func(n *int64, u *atomic.Uint64) {
			for {
				old := u.Load()
				if u.CompareAndSwap(old, old+1) {
					break
				}
			}
			atomic.AddInt64(n, 1)
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, res := countTraces(t, func() {
				var n int64
				var u atomic.Uint64
				var wg sthread.WaitGroup
				wg.Add(2)
				for range 2 {
					sthread.Go(func() { defer wg.Done(); tt.inc(&n, &u) })
				}
				wg.Wait()
				sthread.Assert(atomic.LoadInt64(&n) == 2, "lost update")
			}, search.NewDPOR())
			if got := len(res.Bugs) > 0; got != tt.bug {
				t.Fatalf("bugs found: %d, want a bug %v", len(res.Bugs), tt.bug)
			}
		})
	}
}

// countTraces explores f with st, counting its executions and their
// Mazurkiewicz traces.
func countTraces(t *testing.T, f func(), st search.Strategy) (*searchtest.TraceCounter, *search.Result) {
	t.Helper()
	ex, done := sthread.Executor(f)
	defer done()
	c := searchtest.NewTraceCounter(st)
	res, err := search.Explore(context.Background(), ex, c, search.Options{All: true, MaxExecutions: 300000})
	if err != nil {
		t.Fatal(err)
	}
	return c, res
}
