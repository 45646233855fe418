// Command rwrecursive takes a read lock twice in one goroutine. Alone that
// works, but a writer that arrives between the two RLocks blocks new
// readers: the second RLock waits for the writer, which waits for the first
// RLock to be released (read-write-read deadlock).
package main

import (
	"fmt"
	"sync"
)

type cache struct {
	mu   sync.RWMutex
	data map[string]string
}

func (c *cache) get(k string) string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.data[k]
}

func (c *cache) both(a, b string) string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.get(a) + c.get(b) // RLock again while holding it
}

func (c *cache) put(k, v string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.data[k] = v
}

func main() {
	c := &cache{data: map[string]string{"x": "1", "y": "2"}}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c.put("z", "3")
	}()
	fmt.Println(c.both("x", "y"))
	wg.Wait()
}
