package main

import "sync"

// Cache loads each key once: the lock is held while a key is looked up
// and, if missing, loaded, so that no two callers load the same key.
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
	defer c.mu.Unlock()
	if v, ok := c.entries[key]; ok {
		return v
	}
	v := c.load(key)
	c.entries[key] = v
	return v
}
