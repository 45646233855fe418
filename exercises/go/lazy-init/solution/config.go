package main

import "sync"

var (
	config     *Settings
	configOnce sync.Once
)

// Config returns the program's configuration, loaded on first use: the
// sync.Once runs load exactly once, and every caller returns from Do only
// after it has finished, so no caller sees a configuration half made.
func Config() *Settings {
	configOnce.Do(func() { config = load() })
	return config
}
