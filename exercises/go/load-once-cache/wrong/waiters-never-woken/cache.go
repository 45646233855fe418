package main

import "sync"

// entry is a key's value, or its load under way: done is closed when val
// is there.
type entry struct {
	done chan struct{}
	val  string
}

// Cache loads each key once. The first caller of a key records that its
// load is under way and loads it without holding the lock (a load may use
// the cache itself); the callers who come meanwhile wait for that load to
// be done instead of loading again.
type Cache struct {
	mu      sync.Mutex
	entries map[string]*entry
	load    func(key string) string
}

// NewCache returns an empty cache that loads keys with load.
func NewCache(load func(key string) string) *Cache {
	return &Cache{entries: map[string]*entry{}, load: load}
}

// Get returns the value of key, loading it if nobody has yet.
func (c *Cache) Get(key string) string {
	c.mu.Lock()
	if e, ok := c.entries[key]; ok {
		c.mu.Unlock()
		<-e.done // loaded, or being loaded by another caller
		return e.val
	}
	e := &entry{done: make(chan struct{})}
	c.entries[key] = e
	c.mu.Unlock()
	e.val = c.load(key)
	return e.val
}
