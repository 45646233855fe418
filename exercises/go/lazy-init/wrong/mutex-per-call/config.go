package main

import "sync"

var config *Settings

// Config returns the program's configuration, loading it on first use,
// with the lock held.
func Config() *Settings {
	var mu sync.Mutex
	mu.Lock()
	defer mu.Unlock()
	if config == nil {
		config = load()
	}
	return config
}
