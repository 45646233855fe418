package main

import "sync"

var (
	config  *Settings
	loading bool
	mu      sync.Mutex
)

// Config returns the program's configuration, loading it on first use.
// The first caller marks it as loading and loads it without holding the
// lock, so that the others are not kept waiting.
func Config() *Settings {
	mu.Lock()
	if !loading {
		loading = true
		mu.Unlock()
		config = load()
		return config
	}
	mu.Unlock()
	return config
}
