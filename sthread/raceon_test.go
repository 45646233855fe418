//go:build race

package sthread_test

import "runtime"

// raceBuild reports a test binary built with the race detector.
const raceBuild = true

// raceErrors is the number of reports the race detector made.
func raceErrors() int { return runtime.RaceErrors() }
