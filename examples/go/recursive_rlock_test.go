package goexamples

import (
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
)

// cache is a map read under an RWMutex.
type cache struct {
	mu sthread.RWMutex
	m  map[string]int
}

func (c *cache) get(k string) int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.m[k]
}

// sum read-locks the cache and calls get, which read-locks it again. That
// works until a writer arrives between the two RLocks: a waiting writer
// blocks new readers, the writer waits for the first read lock to go, and
// the reader waits for the writer.
func (c *cache) sum(a, b string) int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.get(a) + c.get(b)
}

func (c *cache) set(k string, v int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[k] = v
}

func recursiveRLock() {
	c := &cache{m: map[string]int{"x": 1}}
	sthread.Go(func() { c.set("y", 2) })
	c.sum("x", "y")
}

func TestRecursiveRLock(t *testing.T) {
	expectBug(t, recursiveRLock, search.Deadlock,
		"waits in RWMutex.RLock for c.mu (thread 2 is waiting to write-lock it)",
		"waits in RWMutex.Lock for c.mu (read-locked by thread 1)")
}
