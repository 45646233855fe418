package main

var config *Settings

// Config returns the program's configuration, loading it with load() the
// first time it is asked for, and never again. Many goroutines call Config
// at once: each must get the loaded configuration, and load must run only
// once.
func Config() *Settings {
	if config == nil {
		config = load()
	}
	return config
}
