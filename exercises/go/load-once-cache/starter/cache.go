package main

// Cache loads each key once: many goroutines call Get at once, and a key
// must be loaded (by load) only once whoever asks for it and when; callers
// who ask while its load is under way wait for it. A load may itself call
// Get for another key: Get must not hold a lock while it loads.
type Cache struct {
	entries map[string]string
	load    func(key string) string
}

// NewCache returns an empty cache that loads keys with load.
func NewCache(load func(key string) string) *Cache {
	return &Cache{entries: map[string]string{}, load: load}
}

// Get returns the value of key, loading it if nobody has yet.
func (c *Cache) Get(key string) string {
	if v, ok := c.entries[key]; ok {
		return v
	}
	v := c.load(key)
	c.entries[key] = v
	return v
}
