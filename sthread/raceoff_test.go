//go:build !race

package sthread_test

// raceBuild reports a test binary built with the race detector.
const raceBuild = false

// raceErrors is the number of reports the race detector made.
func raceErrors() int { return 0 }
