package main

import "sync/atomic"

var (
	config  *Settings
	loading atomic.Bool
)

// Config returns the program's configuration, loading it on first use.
// An atomic flag makes sure that only one caller loads it, without a lock.
func Config() *Settings {
	if loading.CompareAndSwap(false, true) {
		config = load()
	}
	return config
}
