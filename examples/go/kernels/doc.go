// Package kernels holds small tests in plain Go (no sthread) modelled on
// concurrency bugs of kinds seen in large Go projects: a server's watch
// loop, a cache refreshed under a lock, a worker pool shut down twice, an
// error group whose losers block. Each test is a bug that stdbg find
// reports with a minimal schedule:
//
//	STDBG_ZOO=1 stdbg find -run TestWatchLeakAfterTimeout ./examples/go/kernels
//
// The tests skip themselves unless STDBG_ZOO is set: under a plain go test
// most of them pass, fail or hang only in rare schedules.
package kernels

import (
	"os"
	"testing"
)

// zoo skips a kernel outside stdbg.
func zoo(t *testing.T) {
	t.Helper()
	if os.Getenv("STDBG_ZOO") == "" {
		t.Skip("a bug shown by stdbg find (set STDBG_ZOO=1)")
	}
}
