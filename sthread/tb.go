package sthread

import (
	"fmt"
	"strings"
	"testing"
)

// TB wraps t for use inside a checked function. Under Check, its Error,
// Errorf, Fatal, Fatalf, Fail and FailNow called from a checked goroutine
// end the execution and are reported, like a failed Assert, with the
// schedule and the trace (the first failure of an execution is the one
// reported); Log and Logf are dropped while the search runs and go to t
// when a schedule is replayed. Elsewhere every method is t's.
//
// Calling t.Fatal or t.FailNow directly inside the checked function would
// end the goroutine with runtime.Goexit, which Check reports as a failure
// without the message; t.Error would fail the test without telling the
// schedule.
//
//go:norace
func TB(t testing.TB) testing.TB { return &checkedTB{TB: t} }

type checkedTB struct{ testing.TB }

// fail reports msg if the caller is a checked goroutine and reports
// whether it did.
//
//go:norace
func (c *checkedTB) fail(msg string) bool {
	if !hooked.Load() {
		return false
	}
	th, ok := enterFree()
	if !ok {
		return false
	}
	th.failUser(msg)
	return true
}

//go:norace
func sprintln(args []any) string { return strings.TrimSuffix(fmt.Sprintln(args...), "\n") }

//go:norace
func (c *checkedTB) Error(args ...any) {
	if !c.fail(sprintln(args)) {
		c.TB.Helper()
		c.TB.Error(args...)
	}
}

//go:norace
func (c *checkedTB) Errorf(format string, args ...any) {
	if !c.fail(fmt.Sprintf(format, args...)) {
		c.TB.Helper()
		c.TB.Errorf(format, args...)
	}
}

//go:norace
func (c *checkedTB) Fatal(args ...any) {
	if !c.fail(sprintln(args)) {
		c.TB.Helper()
		c.TB.Fatal(args...)
	}
}

//go:norace
func (c *checkedTB) Fatalf(format string, args ...any) {
	if !c.fail(fmt.Sprintf(format, args...)) {
		c.TB.Helper()
		c.TB.Fatalf(format, args...)
	}
}

//go:norace
func (c *checkedTB) Fail() {
	if !c.fail("Fail called") {
		c.TB.Fail()
	}
}

//go:norace
func (c *checkedTB) FailNow() {
	if !c.fail("FailNow called") {
		c.TB.FailNow()
	}
}

// logging reports whether a log line goes to the test: always outside
// Check, only when replaying a schedule under it.
//
//go:norace
func logging() bool {
	if !hooked.Load() {
		return true
	}
	r := checking.Load()
	return r == nil || r.replay
}

//go:norace
func (c *checkedTB) Log(args ...any) {
	if logging() {
		c.TB.Helper()
		c.TB.Log(args...)
	}
}

//go:norace
func (c *checkedTB) Logf(format string, args ...any) {
	if logging() {
		c.TB.Helper()
		c.TB.Logf(format, args...)
	}
}
