package lang

import (
	"testing"

	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// CheckTest runs the body of a plain test function: under stdbg find it
// is one execution of body, like sthread.Check; elsewhere it runs body
// once. A test marked failed (t.Error) when body returns is reported as an
// assertion failure.
//
//go:norace
func CheckTest(t *testing.T, body func()) {
	t.Helper()
	if !rt.Remote() && !rt.Searching() {
		body()
		return
	}
	sthread.Check(t, func() {
		rt.ShowAs(body)
		// A test that failed before this execution (the testing package
		// fails a test once the race detector reported a race, found
		// by an earlier execution) says nothing of this one.
		failed := t.Failed()
		returned := false
		defer func() {
			if !returned && t.Skipped() {
				// t.Skip ended the body with runtime.Goexit: the
				// execution ends as if it returned.
				rt.Skipping()
			}
		}()
		body()
		returned = true
		if !failed && t.Failed() {
			sthread.Assert(false, "the test failed (t.Error or t.Fail)")
		}
	})
}

// TestCall returns t, or under a check sthread.TB(t). Instrumented plain
// Go tests call it before each method of a *testing.T that logs, fails or
// skips: stdbg rewrites t.Logf(...) into lang.TestCall(t, "Logf").Logf(...).
// Under stdbg, a t.Fatalf of the test is then the execution's assertion
// failure, with its message and line, and a goroutine that calls such a
// method after the checked test function returned ends the execution with
// a misuse, told with its schedule: go test panics ("Log in goroutine
// after TestX has completed") when that happens in a real run. Elsewhere
// it returns t.
//
//go:norace
func TestCall(t testing.TB, method string) testing.TB {
	rt.LateTestCall(t, method)
	if rt.Hooked() {
		// Under the checker, t behaves as sthread.TB(t): a failure of
		// the checked function is the execution's assertion failure,
		// with its message and line, and logs are kept for replays.
		return sthread.TB(t)
	}
	return t
}
