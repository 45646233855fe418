// Package synctest is package testing/synctest of the standard library for
// programs that stdbg checks: Test, Wait and Sleep, with the standard
// library's names. Under a check (stdbg test, stdbg find), Test runs its
// function in a bubble whose goroutines are goroutines of the checked
// program, explored like any others, with synctest's rules: the bubble has
// a virtual clock of its own, which starts at midnight UTC, 2000-01-01,
// moves only when every goroutine of the bubble is durably blocked, and
// neither moves the clock outside the bubble nor is moved by it; Wait
// returns once every other goroutine of the bubble is durably blocked, and
// Test returns once they have all ended, or reports a deadlock when they
// are all blocked for ever. Outside a check they are testing/synctest's
// functions.
//
// stdbg's instrumentation of plain Go (package goinstr) rewrites the uses
// of these names of package testing/synctest into uses of this package's.
// (synctest.Run, which Go 1.24 and 1.25 had under GOEXPERIMENT=synctest,
// is gone from the Go releases stdbg builds with.)
package synctest

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stdbg/stdbg/sthread/lang"
	stime "github.com/stdbg/stdbg/sthread/time"
)

// Test is synctest.Test: it runs f in a new bubble, and waits for every
// goroutine of the bubble to end.
//
//go:norace
func Test(t *testing.T, f func(*testing.T)) {
	if !lang.Bubble(t, f) {
		synctest.Test(t, f)
	}
}

// Wait is synctest.Wait: it blocks until every other goroutine of the
// calling goroutine's bubble is durably blocked.
//
//go:norace
func Wait() {
	if !lang.Wait() {
		synctest.Wait()
	}
}

// Sleep is synctest.Sleep (Go 1.27): time.Sleep(d), then Wait.
//
//go:norace
func Sleep(d time.Duration) {
	stime.Sleep(d)
	Wait()
}
