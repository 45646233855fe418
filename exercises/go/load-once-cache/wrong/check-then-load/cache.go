package main

import "sync"

// Cache loads each key once: the map is used only with the lock held, and
// the lock is not held while a key loads.
type Cache struct {
	mu      sync.Mutex
	entries map[string]string
	load    func(key string) string
}

// NewCache returns an empty cache that loads keys with load.
func NewCache(load func(key string) string) *Cache {
	return &Cache{entries: map[string]string{}, load: load}
}

// Get returns the value of key, loading it if nobody has yet.
func (c *Cache) Get(key string) string {
	c.mu.Lock()
	v, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = c.load(key)
	c.mu.Lock()
	c.entries[key] = v
	c.mu.Unlock()
	return v
}
