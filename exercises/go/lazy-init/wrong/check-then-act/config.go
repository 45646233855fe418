package main

var config *Settings

// Config returns the program's configuration, loading it on first use.
func Config() *Settings {
	if config == nil {
		config = load()
	}
	return config
}
