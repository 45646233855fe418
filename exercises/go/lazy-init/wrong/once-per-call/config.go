package main

import "sync"

var config *Settings

// Config returns the program's configuration, loading it on first use.
func Config() *Settings {
	var once sync.Once
	once.Do(func() { config = load() })
	return config
}
