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
// stdbg's runtime, and the Go runtime's assembly below them, which go
// test's trace does not have, are taken out. A goroutine's trace ends at
// runtime.goexit's line under go test too: kept when no frame of stdbg's
// comes before it.
func TestStdbgFramesOut(t *testing.T) {
	own := sthreadSource(t)
	const asm = "        \t            \t\t\t\t/usr/local/go/src/runtime/asm_amd64.s:1771"
	head := []string{"    x_test.go:12: ", "        \tError Trace:\t/src/x_test.go:12"}
	tail := []string{"        \tError:      \tNot equal: ", "        \tMessages:   \tsee /src/x_test.go:12"}
	lines := func(mid ...string) string {
		return strings.Join(append(append(append([]string{}, head...), mid...), tail...), "\n")
	}
	tests := []struct{ name, log, want string }{
		{"stdbg's frames and the goroutine's end below them", lines("        \t            \t\t\t\t"+own+":58", asm), lines()},
		{"a goroutine's trace as go test prints it", lines(asm), lines(asm)},
		{"a trace of the test's goroutine", lines(), lines()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stdbgFramesOut(tt.log); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
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
