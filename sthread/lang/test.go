package lang

import (
	"os"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/internal/rtnames"
	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// CheckTest runs the body of a plain test function: under stdbg find it
// is one execution of body, like sthread.Check; with rtnames.ReplayEnv
// set (stdbg replay --dlv, stdbg dap) it replays that schedule of body,
// publishing each step for a debugger; elsewhere it runs body once. A
// test marked failed (t.Error) when body returns is reported as an
// assertion failure at the test function, with what the execution logged
// through package testing (an assertion library's message), unless the
// race detector made it fail: its race is reported then.
//
//go:norace
func CheckTest(t *testing.T, body func()) {
	t.Helper()
	// Below body, the program sees the frames below this test function
	// (package testing's), as under go test: see sthread/runtime.Caller.
	rt.TestBegun(2)
	_, replaying := os.LookupEnv(rtnames.ReplayEnv)
	if !rt.Remote() && !rt.Searching() && !replaying {
		body()
		return
	}
	if replaying {
		// Only stdbg runs an instrumented test binary, and it starts
		// one to replay a schedule of one test and nothing else: the
		// race detector sees the program as the search that found the
		// bug saw it.
		rt.HideRaces()
	}
	sthread.Check(t, func() {
		rt.ShowAs(body)
		rt.TestBegins(t, t.Name())
		// A test that failed before this execution (the testing package
		// fails a test once the race detector reported a race, found
		// by an earlier execution) says nothing of this one.
		failed := t.Failed()
		// What the test logs through package testing itself (an
		// assertion library's t.Errorf) goes on from here.
		_, logged, readable := testOutput(t, -1) // (its length only)
		returned := false
		defer func() {
			if !returned && t.Skipped() {
				// t.Skip ended the body with runtime.Goexit: the
				// execution ends as if it returned, once the test's
				// cleanups ran.
				rt.Skipping()
				cancelContexts(t)
				rt.RunCleanups(t)
			}
		}()
		body()
		cancelContexts(t)
		rt.RunCleanups(t)
		rt.TestEnds(t, body)
		returned = true
		if !failed && t.Failed() {
			// Failed by a call stdbg did not see (its t.Error calls are
			// assertions of their own), or by the race detector.
			rt.TestFailed(failureMessage(t, logged, readable))
		}
	})
}

// TestCall returns t, or under a check sthread.TB(t). Instrumented plain
// Go tests call it before each method of a *testing.T that logs, fails or
// skips: stdbg rewrites t.Logf(...) into lang.TestCall(t, "Logf").Logf(...).
// Under stdbg, a t.Fatalf of the test is then the execution's assertion
// failure, with its message and line. A goroutine's call is a scheduling
// point, ordered against the end of the test and its subtests, and a call
// that go test would make panic because the test (or subtest) is over
// ("Log in goroutine after TestX has completed", "Fail in goroutine after
// TestX/sub has completed") ends the execution with a misuse, told with
// its schedule. Elsewhere it returns t.
//
//go:norace
func TestCall(t testing.TB, method string) testing.TB {
	if strings.HasPrefix(method, "Skip") {
		// (The methods that log or fail do it in sthread.TB's.)
		rt.TestCall(t, method)
	}
	if rt.Hooked() {
		// Under the checker, t behaves as sthread.TB(t): a failure of
		// the checked function is the execution's assertion failure,
		// with its message and line, and logs are kept for replays.
		return sthread.TB(t)
	}
	return t
}

// Run is t.Run(name, f). Under a check, the subtest's function, which
// package testing runs on a goroutine of its own while t.Run waits for it,
// runs as the calling checked goroutine: its operations are explored with
// the test's, and a subtest that calls Parallel runs at once, as Parallel
// does under a check. Elsewhere it is t.Run.
//
//go:norace
func Run(t *testing.T, name string, f func(t *testing.T)) bool {
	th, ok := rt.Current()
	if !ok {
		return t.Run(name, f)
	}
	var end rt.Lent
	passed := t.Run(name, func(st *testing.T) {
		end = th.Lend(f, func() {
			rt.SubtestBegins(t, st, st.Name())
			f(st)
			cancelContexts(st)
			rt.RunCleanups(st)
			rt.TestEnds(st, f)
		})
	})
	end.Resume()
	return passed
}

// Parallel is t.Parallel(). Under a check a test runs alone in its
// process, its schedules explored one execution after the other: it does
// nothing (package testing would make the test wait for its siblings once,
// and refuse a second call in the next execution). Elsewhere it is
// t.Parallel.
//
//go:norace
func Parallel(t *testing.T) {
	if _, ok := rt.Current(); ok {
		return
	}
	t.Parallel()
}

// Cleanup is t.Cleanup(f). Under a check, f runs when the test (or
// subtest, or the function of synctest.Test: see Bubble) ends in the
// execution that registered it, as a test's cleanups
// run when it ends under go test (package testing would run the cleanups
// of every execution once the whole search is over). Elsewhere it is
// t.Cleanup.
//
//go:norace
func Cleanup(t testing.TB, f func()) {
	if rt.Cleanup(scope(t), f) {
		return
	}
	t.Cleanup(f)
}
