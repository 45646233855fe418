package gotest

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestOutsideTheModel runs the tests of testdata/outside (a module whose
// fake clock and pause live in a module of their own, and whose assertions
// are testify's) with a budget shorter than the transition timeout, the
// race detector on, as users run them. With the dependencies left as they
// are (STDBG_GO_DEPS=none, as for a module stdbg cannot rewrite):
//
//   - a goroutine asleep on the fake clock inside one of its steps, which
//     only the test's goroutine (held by the scheduler) can wake, is
//     "cannot judge", said apart in the summary, not a transition timeout;
//   - a step that outlasts the budget is cut when the budget ends: the
//     search is incomplete, not a transition timeout found after it;
//   - testify's failed assertion is reported with its message as go test
//     prints it.
func TestOutsideTheModel(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	t.Setenv("STDBG_GO_DEPS", "none")
	text, sum := runOutside(t, "")
	checkOutside(t, text)
	for _, want := range []string{
		// testify's message, as go test prints it.
		"the test failed (t.Error or t.Fail):",
		"Error Trace:",
		"Not equal: ",
		"expected: 2",
		"actual  : 1",
		"Messages:   \tboth turns counted",
		"stdbg test: 3 tests in 1 package: 0 ok, 1 BUG, 1 incomplete, 1 cannot judge, ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if !regexp.MustCompile(`(?m)^BUG +TestLostTurn \(\d+\.\d\ds\): .*ASSERTION FAILED \*\*\*`).MatchString(text) {
		t.Errorf("no line BUG TestLostTurn: ASSERTION FAILED in:\n%s", text)
	}
	if sum.Unjudged != 1 || sum.Bugs != 1 || sum.Incomplete != 1 {
		t.Errorf("summary %+v", sum)
	}
}

// TestOutsideTheModelFreshProcesses is TestOutsideTheModel with a fresh
// process per execution, as for a package whose state the search cannot
// put back (STDBG_REUSE=0): stdbg drives each step from its process, and
// the budget cuts a step there too, and a goroutine waiting outside the
// model is "cannot judge" there too. (Both were transition timeouts,
// found 5 s into the step, past the budget.)
func TestOutsideTheModelFreshProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	t.Setenv("STDBG_GO_DEPS", "none")
	t.Setenv("STDBG_REUSE", "0")
	text, sum := runOutside(t, "^(TestTakeOnMock|TestLongStep)$")
	checkOutside(t, text)
	if sum.Unjudged != 1 || sum.Incomplete != 1 {
		t.Errorf("summary %+v", sum)
	}
}

// checkOutside checks the verdicts of TestTakeOnMock and TestLongStep in
// the output of runOutside.
func checkOutside(t *testing.T, text string) {
	t.Helper()
	for _, want := range []struct{ status, test, detail string }{
		{"unjudged", "TestTakeOnMock", "cannot judge: thread 2 waited "},
		{"incomplete", "TestLongStep", "budget of 3s spent (the execution under way was cut after "},
	} {
		re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(want.status) + ` +` + want.test + ` \(\d+\.\d\ds\): .*` + regexp.QuoteMeta(want.detail))
		if !re.MatchString(text) {
			t.Errorf("no line %s %s: %s in:\n%s", want.status, want.test, want.detail, text)
		}
	}
	for _, want := range []string{
		// Where the sleeper waits, and why stdbg cannot judge.
		"outside the model (chan receive in mockclock.(*Mock).Sleep (mockclock.go:30), called from limiter.(*Limiter).Take (limiter.go:26))",
		"for something stdbg does not schedule",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	for _, bad := range []string{"TRANSITION TIMEOUT", "did not reach its next scheduling point"} {
		if strings.Contains(text, bad) {
			t.Errorf("output has %q:\n%s", bad, text)
		}
	}
}

// runOutside runs stdbg test on the shared copy of testdata/outside's
// limiter package (outside) with a budget of 3s per test, on the tests
// that run selects ("": all).
func runOutside(t *testing.T, run string) (string, *Summary) {
	t.Helper()
	var out bytes.Buffer
	sum, err := Run(context.Background(), Config{Dir: outside, Patterns: []string{"./limiter"}, Stdout: &out, Parallel: 1, Race: true, Run: run,
		Budget: 3 * time.Second, Search: SearchWith(3*time.Second, true)})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	return out.String(), sum
}

// TestDependencyRewritten runs the same tests with stdbg's default, every
// dependency module rewritten: the fake clock's wait is in the model, so
// the sleeper is judged (no "cannot judge", no transition timeout) and the
// bug is still found. Before dependencies were rewritten, the sleeper was
// "cannot judge".
func TestDependencyRewritten(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	text, sum := runOutside(t, "")
	if sum.Unjudged != 0 || sum.Bugs != 1 {
		t.Errorf("summary %+v, want no test unjudged and one bug:\n%s", sum, text)
	}
	for _, bad := range []string{"cannot judge", "TRANSITION TIMEOUT", "did not reach its next scheduling point"} {
		if strings.Contains(text, bad) {
			t.Errorf("output has %q:\n%s", bad, text)
		}
	}
	// The sleeper's test spins on a select with a default case until the
	// clock has moved: judged, within its budget or not.
	for _, want := range []string{`BUG +TestLostTurn`, `(ok|incomplete) +TestTakeOnMock`} {
		if !regexp.MustCompile(`(?m)^` + want + ` \(`).MatchString(text) {
			t.Errorf("no line %q in:\n%s", want, text)
		}
	}
}
