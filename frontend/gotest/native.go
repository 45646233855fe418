package gotest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/stdbg/stdbg/internal/procgroup"
	"github.com/stdbg/stdbg/internal/rtnames"
	"github.com/stdbg/stdbg/internal/targettmp"
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
	// took is how long the test ran, as package testing says.
	took time.Duration
	// cut, when not 0, is the bound of the run that ended it before the
	// test had a verdict: what its budget left it (nativeBound).
	cut time.Duration
}

// NativeFloor is the least time the run of a test as go test runs it is
// given when a budget bounds it (nativeBound): a test whose search spent
// its whole budget still runs once. (A variable for the tests.)
var NativeFloor = 10 * time.Second

// nativeBound is the most wall time a test's run as go test runs it may
// take: what its search left of the budget (left), and at least
// NativeFloor; 0 (no bound but go test's -timeout) without a budget.
func nativeBound(budget, left time.Duration) time.Duration {
	if budget <= 0 {
		return 0
	}
	return max(left, NativeFloor)
}

// runNative runs test (selected by pattern) of the test binary bin in dir,
// as go test -v would, with the test binary's flags extra, within timeout
// (the test binary's -test.timeout, which dumps the goroutines of a test
// that hangs) and bound (what the test's budget left it, nativeBound; 0:
// none): a run that reaches its bound first is cut, its process group
// killed.
func runNative(ctx context.Context, bin, dir, test, pattern string, extra, env []string, timeout, bound time.Duration) *nativeRun {
	out, ended, cut, err := runBinary(ctx, bin, dir, pattern, extra, env, timeout, bound)
	n := &nativeRun{output: out}
	for _, line := range out {
		for _, st := range []string{"PASS", "FAIL", "SKIP"} {
			if strings.HasPrefix(line, "--- "+st+": "+test+" (") {
				n.status = st
			}
		}
	}
	switch {
	case cut && n.status == "":
		n.cut = bound
	case ended:
		n.why = fmt.Sprintf("did not end within %s", timeout)
	case err != nil && slices.ContainsFunc(out, isTimeoutPanic):
		n.why = hangs(timeout)
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

// runBinary runs the test binary bin in dir with -test.v on the tests
// that pattern selects, with its flags extra and the environment env
// added to stdbg's, within timeout (-test.timeout, then 30 seconds more
// before it is killed: ended) and bound (0: none; a bound shorter than
// that kills the binary and its process group when it is reached: ended
// and cut). It returns what the binary printed, line by line, and how it
// ended.
func runBinary(ctx context.Context, bin, dir, pattern string, extra, env []string, timeout, bound time.Duration) (out []string, ended, cut bool, err error) {
	args := append([]string{"-test.run=" + pattern, "-test.count=1", "-test.v", fmt.Sprintf("-test.timeout=%s", timeout)}, extra...)
	limit := timeout + 30*time.Second
	if bound > 0 && bound < timeout {
		// The budget ends the run before go test's timeout would.
		limit, cut = bound, true
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	// A race-enabled binary would sleep a second at its exit.
	// A test the timeout ends leaves its t.TempDir: it goes with the
	// process's temporary directory.
	tmp := targettmp.New(false)
	defer tmp.Remove()
	cmd.Env = rtnames.WithRaceOptions(tmp.Env(append(os.Environ(), env...)))
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	// The binary leads a process group: the processes its tests started
	// and left running (peers, servers) end with it, and one that holds
	// its output does not keep Wait waiting.
	procgroup.Lead(cmd)
	cmd.Cancel = procgroup.Cancel(cmd)
	cmd.WaitDelay = 2 * time.Second
	err = cmd.Run()
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil // the binary ended well; what it left held the output
	}
	if cmd.Process != nil {
		procgroup.Kill(cmd.Process.Pid)
	}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out, ctx.Err() != nil, cut && errors.Is(ctx.Err(), context.DeadlineExceeded), err
}

// hangs is why a test that go test's -timeout ended fails.
func hangs(timeout time.Duration) string {
	return fmt.Sprintf("hangs: go test's timeout of %s ended it (the goroutines' stacks are below)", timeout)
}

// isTimeoutPanic reports whether line is package testing's panic at
// -test.timeout.
func isTimeoutPanic(line string) bool { return strings.HasPrefix(line, "panic: test timed out after ") }

// runNatives runs the tests names of the test binary bin in dir in one
// process, as go test runs a package's tests (with -v), the subtests that
// rest selects (-run's further levels), the flags extra, and returns the
// run of each test the binary gave a verdict on: its status, its own
// lines, and how long it took by package testing's count. A test that
// failed or that the binary gave no verdict on (it ended, or another test
// used up the timeout, before) is left out, to be run alone as go test
// -run would, but one that hung for the whole timeout, which is its own
// verdict. The run is bounded by bound (0: none) as well, as runNative's:
// a test still running when it was reached was cut (nativeRun.cut), and
// those that had not begun are left out. The lines printed outside every
// test (TestMain's) are returned too.
func runNatives(ctx context.Context, bin, dir string, names []string, rest string, extra, env []string, timeout, bound time.Duration) (map[string]*nativeRun, []string) {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	pattern := "^(" + strings.Join(quoted, "|") + ")$"
	if rest != "" {
		pattern += "/" + rest
	}
	out, ended, cut, err := runBinary(ctx, bin, dir, pattern, extra, env, timeout, bound)
	wanted := map[string]bool{}
	for _, n := range names {
		wanted[n] = true
	}
	runs, outside := splitNatives(out, wanted)
	hung := map[string]bool{}
	if err != nil && !ended {
		hung = hungTests(out, timeout)
	}
	for name, n := range runs {
		switch {
		case n.status == "PASS" || n.status == "SKIP":
		case n.status == "" && hung[name]:
			n.why = hangs(timeout)
		case n.status == "" && cut:
			// Running when the bound was reached: its run was cut.
			n.cut = bound
		default:
			delete(runs, name)
		}
	}
	return runs, outside
}

// splitNatives divides the output of a test binary run with -test.v among
// its top-level tests (those in wanted): the lines from a test's
// "=== RUN" on, and the lines after a "=== NAME", "=== CONT" or "=== RUN"
// of one of its subtests, belong to it, as go test -json gives them; the
// status comes from its "--- PASS", "--- FAIL" or "--- SKIP" line. The
// lines before the first test are returned apart.
func splitNatives(out []string, wanted map[string]bool) (map[string]*nativeRun, []string) {
	runs := map[string]*nativeRun{}
	var outside []string
	var cur *nativeRun
	for _, line := range out {
		if rest, ok := strings.CutPrefix(line, "=== "); ok {
			verb, name, _ := strings.Cut(rest, " ")
			name = strings.TrimSpace(name)
			top, _, _ := strings.Cut(name, "/")
			if (verb == "RUN" || verb == "NAME" || verb == "CONT" || verb == "PAUSE") && wanted[top] {
				if runs[top] == nil {
					runs[top] = &nativeRun{}
				}
				cur = runs[top]
			}
		}
		for _, st := range []string{"PASS", "FAIL", "SKIP"} {
			if rest, ok := strings.CutPrefix(line, "--- "+st+": "); ok {
				name, took, _ := strings.Cut(rest, " (")
				if n := runs[name]; n != nil {
					n.status = st
					if d, err := time.ParseDuration(strings.TrimSuffix(took, ")")); err == nil {
						n.took = d
					}
					cur = n
				}
			}
		}
		if cur == nil {
			outside = append(outside, line)
			continue
		}
		cur.output = append(cur.output, line)
	}
	return runs, outside
}

// hungTests are the top-level tests that package testing's panic at
// -test.timeout lists as running for the whole timeout (to the second, as
// it gives their times).
func hungTests(out []string, timeout time.Duration) map[string]bool {
	hung := map[string]bool{}
	i := slices.IndexFunc(out, isTimeoutPanic)
	if i < 0 {
		return hung
	}
	// "running tests:", then a test a line, each indented (by the
	// runtime's printing of a panic's lines, and by package testing).
	for _, line := range out[i+1:] {
		rest := strings.TrimLeft(line, "\t")
		if rest == "running tests:" {
			continue
		}
		if rest == line {
			break
		}
		name, took, ok := strings.Cut(rest, " (")
		if !ok {
			break
		}
		d, err := time.ParseDuration(strings.TrimSuffix(took, ")"))
		if err == nil && d >= timeout.Round(time.Second) && !strings.Contains(name, "/") {
			hung[name] = true
		}
	}
	return hung
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
