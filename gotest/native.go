package gotest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/stdbg/stdbg/rtnames"
)

// A nativeRun is a test run once as go test runs it: its goroutines run
// as Go schedules them, outside stdbg's scheduler (an instrumented test
// binary outside a search passes every operation through to the real
// one).
type nativeRun struct {
	// status is PASS, FAIL or SKIP, as the test's line says; "" when the
	// binary ended without one (a panic, os.Exit, a timeout).
	status string
	// output is what the binary printed, line by line.
	output []string
	// why says how the binary ended when it failed.
	why string
}

// runNative runs test (selected by pattern) of the test binary bin in dir,
// as go test -v would, with the test binary's flags extra, within timeout
// (the test binary's -test.timeout, which dumps the goroutines of a test
// that hangs).
func runNative(ctx context.Context, bin, dir, test, pattern string, extra, env []string, timeout time.Duration) *nativeRun {
	args := append([]string{"-test.run=" + pattern, "-test.count=1", "-test.v", fmt.Sprintf("-test.timeout=%s", timeout)}, extra...)
	ctx, cancel := context.WithTimeout(ctx, timeout+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	// A race-enabled binary would sleep a second at its exit.
	cmd.Env = rtnames.WithRaceOptions(append(os.Environ(), env...))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	n := &nativeRun{}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		n.output = append(n.output, line)
		for _, st := range []string{"PASS", "FAIL", "SKIP"} {
			if strings.HasPrefix(line, "--- "+st+": "+test+" (") {
				n.status = st
			}
		}
	}
	switch {
	case ctx.Err() != nil:
		n.why = fmt.Sprintf("did not end within %s", timeout)
	case err != nil && strings.Contains(out.String(), "panic: test timed out after"):
		n.why = fmt.Sprintf("hangs: go test's timeout of %s ended it (the goroutines' stacks are below)", timeout)
	case err != nil && n.status == "":
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			n.why = fmt.Sprintf("the test binary ended with %v before the test did (a panic, or os.Exit)", ee.ProcessState)
		} else {
			n.why = err.Error()
		}
	case n.status == "FAIL":
		n.why = "it failed"
	}
	return n
}

// skipReason is the message of a test that skipped itself: the last line
// it logged before its SKIP line ("file_test.go:12: message").
func (n *nativeRun) skipReason(test string) string {
	for i, l := range n.output {
		if strings.HasPrefix(l, "--- SKIP: "+test+" (") && i > 0 && strings.HasPrefix(n.output[i-1], "    ") {
			return strings.TrimSpace(n.output[i-1])
		}
	}
	return ""
}

// testOutput is the test's own output: its lines without the binary's
// "=== RUN" of the test (its status line has been said) and its closing
// PASS or FAIL.
func (n *nativeRun) testOutput(test string) []string {
	out := n.output
	if len(out) > 0 && out[0] == "=== RUN   "+test {
		out = out[1:]
	}
	for len(out) > 0 {
		last := strings.TrimSpace(out[len(out)-1])
		if last != "PASS" && last != "FAIL" && !strings.HasPrefix(last, "exit status") {
			break
		}
		out = out[:len(out)-1]
	}
	return out
}
