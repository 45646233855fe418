package gotest

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestTestifyTraces runs testdata/outside's traces (testify assertions that
// fail in a test's goroutine, in a goroutine it starts, in a helper, in a
// subtest and in a subtest's goroutine) under go test -race and under
// stdbg test, and compares testify's "Error Trace" of each: the same lines,
// none of stdbg's. testify walks runtime.Callers, which in the rewritten
// program is sthread/runtime's, leaving stdbg's frames out; below a test's
// body it finds package testing's tRunner, and a goroutine's trace ends at
// runtime.goexit's line, as under go test. Before, a goroutine's trace
// lacked that last line, and with testify v1.6.1 (which prints base names,
// go.uber.org/ratelimit's) the trace listed stdbg's frames (test.go:58,
// thread.go:365, thread.go:326).
func TestTestifyTraces(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two test binaries")
	}
	dir := outside
	cmd := exec.Command("go", "test", "-race", "-count=1", "./traces")
	cmd.Dir = dir
	goOut, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("go test -race passed the tests that fail:\n%s", goOut)
	}
	var out bytes.Buffer
	if _, err := Run(context.Background(), Config{Dir: dir, Patterns: []string{"./traces"}, Stdout: &out, Parallel: 1, Race: true,
		Budget: 10 * time.Second, Search: SearchWith(10*time.Second, true)}); err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	want, got := errorTraces(string(goOut)), errorTraces(out.String())
	for _, test := range []string{"TestInTest", "TestInGoroutine", "TestInHelper", "TestInSubtest/sub", "TestInSubtestGoroutine/sub"} {
		w, ok := want[test]
		if !ok {
			t.Fatalf("go test printed no Error Trace for %s:\n%s", test, goOut)
		}
		// A goroutine's trace ends at runtime.goexit's line.
		if strings.Contains(test, "Goroutine") != strings.Contains(w, "/src/runtime/asm_") {
			t.Errorf("go test's trace of %s: %q", test, w)
		}
		if g := got[test]; g != w {
			t.Errorf("%s: stdbg test's Error Trace\n%s\ngo test's\n%s", test, g, w)
		}
		if strings.Contains(got[test], "/sthread/") {
			t.Errorf("%s: stdbg's frames in the trace:\n%s", test, got[test])
		}
	}
	if t.Failed() {
		t.Logf("stdbg test:\n%s", out.String())
	}
}

// errorTraces returns the lines of each "Error Trace" in a test log, joined
// by newlines, by the name testify's "Test:" gives the test.
func errorTraces(log string) map[string]string {
	traces := map[string]string{}
	var trace []string
	in := false
	for _, line := range strings.Split(log, "\n") {
		if _, at, ok := strings.Cut(line, "Error Trace:"); ok {
			trace, in = []string{strings.TrimSpace(at)}, true
			continue
		}
		if f := strings.Fields(line); in && len(f) == 1 {
			trace = append(trace, f[0])
			continue
		}
		in = false
		if _, name, ok := strings.Cut(line, "Test:"); ok && trace != nil {
			traces[strings.TrimSpace(name)] = strings.Join(trace, "\n")
			trace = nil
		}
	}
	return traces
}
