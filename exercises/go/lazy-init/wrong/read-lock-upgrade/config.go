package main

import "sync"

var (
	config *Settings
	mu     sync.RWMutex
)

// Config returns the program's configuration, loading it on first use.
// Callers read it under the read lock, so that they do not wait for each
// other; the first one takes the write lock to load it.
func Config() *Settings {
	mu.RLock()
	defer mu.RUnlock()
	if config == nil {
		mu.Lock()
		config = load()
		mu.Unlock()
	}
	return config
}
