package lang

import (
	"reflect"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// What a test logged through package testing itself. An assertion library
// (testify's assert and require, go-cmp's reports, ...) lives outside the
// module that stdbg instruments: its t.Errorf reaches package testing
// directly, which keeps the message in the test's output until the test
// ends (go test prints it under "--- FAIL"). The failure stdbg reports for
// such a test carries what the execution added to that output, as go test
// would print it.

// testOutput returns what t's output holds from byte from on (the log of
// a test that go test prints when it fails), with its whole length, and
// false when it cannot be read: a package testing whose T has no such
// field. (A run with -test.v prints each line at once: the output holds
// none of them.)
//
//go:norace
func testOutput(t *testing.T, from int) (string, int, bool) {
	c := reflect.ValueOf(t).Elem().FieldByName("common")
	if !c.IsValid() || c.Kind() != reflect.Struct {
		return "", 0, false
	}
	out, mu := c.FieldByName("output"), c.FieldByName("mu")
	if !out.IsValid() || out.Type() != reflect.TypeFor[[]byte]() || !mu.IsValid() || mu.Type() != reflect.TypeFor[sync.RWMutex]() {
		return "", 0, false
	}
	lock := (*sync.RWMutex)(unsafe.Pointer(mu.UnsafeAddr()))
	lock.RLock()
	defer lock.RUnlock()
	b := *(*[]byte)(unsafe.Pointer(out.UnsafeAddr()))
	if from < 0 || from > len(b) {
		from = len(b)
	}
	return string(b[from:]), len(b), true
}

// maxFailureLog is the most of a test's log a failure's message carries.
const maxFailureLog = 8 << 10

// failureMessage is the message of a test that failed through a call
// stdbg did not see: what it logged in this execution (after, the output
// it held before), indented as go test prints it, else the general one.
//
//go:norace
func failureMessage(t *testing.T, before int, readable bool) string {
	const general = "the test failed (t.Error or t.Fail)"
	if !readable {
		return general
	}
	out, _, ok := testOutput(t, before)
	if !ok || out == "" {
		return general
	}
	log := stdbgFramesOut(strings.TrimRight(out, "\n"))
	if len(log) > maxFailureLog {
		log = log[:maxFailureLog] + "\n    ... (the rest of the test's log is left out)"
	}
	if strings.TrimSpace(log) == "" {
		return general
	}
	return general + ":\n" + log
}

// stdbgFramesOut takes out of a test's log the lines that name only a
// source position of stdbg's runtime, and a line of the Go runtime's
// assembly (runtime.goexit's) that follows one: testify's "Error Trace"
// lists the callers of the assertion down to package testing's tRunner or
// the goroutine's end. The program's runtime.Caller and runtime.Callers,
// rewritten into sthread/runtime's, leave stdbg's frames out already (the
// trace reads as under go test, a goroutine's ending at runtime.goexit's
// line); this is for a program whose assertion library is not rewritten
// (STDBG_GO_DEPS), whose stack under a check ends in stdbg's runtime.
//
//go:norace
func stdbgFramesOut(log string) string {
	lines := strings.Split(log, "\n")
	kept := lines[:0]
	dropped := false
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) == 1 {
			file, _, ok := strings.Cut(f[0], ":")
			if ok && (rt.IsSthreadFile(file) || dropped && strings.Contains(file, "/src/runtime/") && strings.HasSuffix(file, ".s")) {
				dropped = true
				continue
			}
		}
		dropped = false
		kept = append(kept, line)
	}
	return strings.Join(kept, "\n")
}
