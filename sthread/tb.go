package sthread

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/sthread/internal/rt"
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
	if !rt.Hooked() {
		return false
	}
	th, ok := rt.EnterFree()
	if !ok {
		return false
	}
	th.FailUser(msg)
	return true
}

//go:norace
func sprintln(args []any) string { return strings.TrimSuffix(fmt.Sprintln(args...), "\n") }

//go:norace
func (c *checkedTB) Error(args ...any) {
	rt.TestCall(c.TB, "Error")
	if !c.fail(sprintln(args)) {
		c.TB.Helper()
		c.TB.Error(args...)
	}
}

//go:norace
func (c *checkedTB) Errorf(format string, args ...any) {
	rt.TestCall(c.TB, "Errorf")
	if !c.fail(fmt.Sprintf(format, args...)) {
		c.TB.Helper()
		c.TB.Errorf(format, args...)
	}
}

//go:norace
func (c *checkedTB) Fatal(args ...any) {
	rt.TestCall(c.TB, "Fatal")
	if !c.fail(sprintln(args)) {
		c.TB.Helper()
		c.TB.Fatal(args...)
	}
}

//go:norace
func (c *checkedTB) Fatalf(format string, args ...any) {
	rt.TestCall(c.TB, "Fatalf")
	if !c.fail(fmt.Sprintf(format, args...)) {
		c.TB.Helper()
		c.TB.Fatalf(format, args...)
	}
}

//go:norace
func (c *checkedTB) Fail() {
	rt.TestCall(c.TB, "Fail")
	if !c.fail("Fail called") {
		c.TB.Fail()
	}
}

//go:norace
func (c *checkedTB) FailNow() {
	rt.TestCall(c.TB, "FailNow")
	if !c.fail("FailNow called") {
		c.TB.FailNow()
	}
}

//go:norace
func (c *checkedTB) Log(args ...any) {
	rt.TestCall(c.TB, "Log")
	if rt.Logging() {
		c.TB.Helper()
		c.TB.Log(args...)
	}
}

//go:norace
func (c *checkedTB) Logf(format string, args ...any) {
	rt.TestCall(c.TB, "Logf")
	if rt.Logging() {
		c.TB.Helper()
		c.TB.Logf(format, args...)
	}
}
