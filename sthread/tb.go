package sthread

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/wire"
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
	lateCall(c.TB, "Error")
	if !c.fail(sprintln(args)) {
		c.TB.Helper()
		c.TB.Error(args...)
	}
}

//go:norace
func (c *checkedTB) Errorf(format string, args ...any) {
	lateCall(c.TB, "Errorf")
	if !c.fail(fmt.Sprintf(format, args...)) {
		c.TB.Helper()
		c.TB.Errorf(format, args...)
	}
}

//go:norace
func (c *checkedTB) Fatal(args ...any) {
	lateCall(c.TB, "Fatal")
	if !c.fail(sprintln(args)) {
		c.TB.Helper()
		c.TB.Fatal(args...)
	}
}

//go:norace
func (c *checkedTB) Fatalf(format string, args ...any) {
	lateCall(c.TB, "Fatalf")
	if !c.fail(fmt.Sprintf(format, args...)) {
		c.TB.Helper()
		c.TB.Fatalf(format, args...)
	}
}

//go:norace
func (c *checkedTB) Fail() {
	lateCall(c.TB, "Fail")
	if !c.fail("Fail called") {
		c.TB.Fail()
	}
}

//go:norace
func (c *checkedTB) FailNow() {
	lateCall(c.TB, "FailNow")
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
	lateCall(c.TB, "Log")
	if logging() {
		c.TB.Helper()
		c.TB.Log(args...)
	}
}

//go:norace
func (c *checkedTB) Logf(format string, args ...any) {
	lateCall(c.TB, "Logf")
	if logging() {
		c.TB.Helper()
		c.TB.Logf(format, args...)
	}
}

// TestCall returns t, or under a check TB(t). Instrumented plain Go tests
// call it before each method of a *testing.T that logs, fails or skips:
// stdbg rewrites t.Logf(...) into sthread.TestCall(t, "Logf").Logf(...).
// Under stdbg, a t.Fatalf of the test is then the execution's assertion
// failure, with its message and line, and a goroutine that calls such a
// method after the checked test function returned ends the execution with
// a misuse, told with its schedule: go test panics ("Log in goroutine
// after TestX has completed") when that happens in a real run. Elsewhere
// it returns t.
//
//go:norace
func TestCall(t testing.TB, method string) testing.TB {
	lateCall(t, method)
	if hooked.Load() {
		// Under the checker, t behaves as TB(t): a failure of the
		// checked function is the execution's assertion failure, with
		// its message and line, and logs are kept for replays.
		return &checkedTB{TB: t}
	}
	return t
}

// lateCall reports the misuse of calling t's method from a goroutine of
// the checked function once that function returned.
//
//go:norace
func lateCall(t testing.TB, method string) {
	if !hooked.Load() {
		return
	}
	th, ok := enterFree()
	if !ok || th.tid == 1 || !th.ex.over {
		return
	}
	what := "Log"
	switch {
	case strings.HasPrefix(method, "Error"), strings.HasPrefix(method, "Fail"), strings.HasPrefix(method, "Fatal"):
		what = "Fail"
	case strings.HasPrefix(method, "Skip"):
		what = "Skip"
	}
	th.failWith(wire.FailMisuse, fmt.Sprintf("t.%s called by goroutine %d after %s returned: go test panics (%s in goroutine after %s has completed)",
		method, th.tid, t.Name(), what, t.Name()), "t."+method)
}
