// Package pkgstate is a correct test that keeps state in package-level
// variables, as real code does: a cache filled lazily under a lock, a
// counter of its misses and a sync.Once that sets up the keys. stdbg's
// search inside the test's process puts them back before each execution,
// so that each starts as in a fresh process (with STDBG_RESTORE=0 every
// execution runs in a fresh process instead, tens of times slower; both
// explore the same schedules and say the same).
package pkgstate

import (
	"sync"
	"testing"
)

var (
	mu     sync.Mutex
	cache  map[string]int
	misses int
	setup  sync.Once
	keys   []string
)

// lookup returns the length of k, computed once per key.
func lookup(k string) int {
	mu.Lock()
	defer mu.Unlock()
	if cache == nil {
		cache = map[string]int{}
	}
	if v, ok := cache[k]; ok {
		return v
	}
	misses++
	cache[k] = len(k)
	return len(k)
}

func TestLookup(t *testing.T) {
	setup.Do(func() { keys = []string{"a", "bb", "a", "ccc", "dd"} })
	var wg sync.WaitGroup
	for _, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := lookup(k); got != len(k) {
				t.Errorf("lookup(%q) = %d", k, got)
			}
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(cache) != 4 || misses < 4 {
		t.Errorf("%d keys cached after %d misses", len(cache), misses)
	}
}
