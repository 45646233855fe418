package lang

import (
	"runtime"
	"strings"
	"testing"
)

// What a test logs through package testing is read back from its output,
// from where an execution began: the message of a failure that an
// assertion library made.
func TestTestOutput(t *testing.T) {
	if testing.Verbose() {
		t.Skip("with -test.v, package testing prints each line at once")
	}
	_, before, ok := testOutput(t, -1)
	if !ok {
		t.Fatal("the test's output cannot be read")
	}
	t.Log("expected: 2\nactual  : 1")
	got, after, ok := testOutput(t, before)
	if !ok || after <= before || !strings.Contains(got, "expected: 2\n") || !strings.Contains(got, "actual  : 1") {
		t.Errorf("output from %d: %q (%d bytes in all, %v)", before, got, after, ok)
	}
}

// testify's "Error Trace" lists the callers of the assertion; those in
// stdbg's runtime and in the Go runtime's assembly, which go test's trace
// does not have, are taken out.
func TestStdbgFramesOut(t *testing.T) {
	own := sthreadSource(t)
	log := strings.Join([]string{
		"    x_test.go:12: ",
		"        \tError Trace:\t/src/x_test.go:12",
		"        \t            \t\t\t\t" + own + ":58",
		"        \t            \t\t\t\t/usr/local/go/src/runtime/asm_amd64.s:1771",
		"        \tError:      \tNot equal: ",
		"        \tMessages:   \tsee /src/x_test.go:12",
	}, "\n")
	want := strings.Join([]string{
		"    x_test.go:12: ",
		"        \tError Trace:\t/src/x_test.go:12",
		"        \tError:      \tNot equal: ",
		"        \tMessages:   \tsee /src/x_test.go:12",
	}, "\n")
	if got := stdbgFramesOut(log); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// sthreadSource is this package's test.go, a source of stdbg's runtime, as
// the Go runtime names it.
func sthreadSource(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller")
	}
	return strings.TrimSuffix(file, "_test.go")[:strings.LastIndexByte(file, '/')+1] + "test.go"
}
