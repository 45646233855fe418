package main

import "sync"

var (
	config *Settings
	mu     sync.Mutex
)

// Config returns the program's configuration, loading it on first use.
// The lock is taken only while the configuration is missing: once it is
// there, callers return it without waiting.
func Config() *Settings {
	if config == nil {
		mu.Lock()
		if config == nil {
			config = load()
		}
		mu.Unlock()
	}
	return config
}
