package main

import "sync"

var (
	config *Settings
	mu     sync.Mutex
)

// Config returns the program's configuration, loading it on first use.
func Config() *Settings {
	mu.Lock()
	if config != nil {
		return config
	}
	config = load()
	mu.Unlock()
	return config
}
