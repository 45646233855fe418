package gofind

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// The Go bug kernels (examples/go/kernels): each test, plain Go, is found
// with the kind of bug it holds and its line, minimised, with the command
// that replays it (the search confirms each bug by replaying it in a fresh
// process; TestPlainGoZoo runs replay itself). The kernels are searched by
// one stdbg test run, which builds the package once and searches each test
// on its own inside one test process, as stdbg find -run searches one
// (TestGoTests and TestPlainGoZoo run find -run): 30 runs of find cost
// twice the CPU time.
func TestGoKernels(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go tests")
	}
	t.Setenv("STDBG_ZOO", "1")
	pkg := filepath.Join(clirun.Root(), "examples", "go", "kernels")
	tests := []struct {
		run, banner, want string
	}{
		{"TestWatchLeakAfterTimeout", "*** THREADS LEAKED", "blocking_test.go:19"},
		{"TestCallbackUnderLock", "*** DEADLOCK DETECTED ***", "c.mu.Lock()"},
		{"TestHandshakeBothWait", "*** DEADLOCK DETECTED ***", "<-toB"},
		{"TestFirstErrorLeaksOthers", "*** THREADS LEAKED", `errc <- errors.New("shard unavailable")`},
		{"TestSelectMissingStop", "*** THREADS LEAKED", "select {"},
		{"TestWaitGroupAddInGoroutine", "*** PROPERTY NOT VALID: ASSERTION FAILED ***", "0 results after Wait, want 1"},
		{"TestCondLostSignal", "*** DEADLOCK DETECTED ***", "cond.Wait()"},
		{"TestRecursiveReadLock", "*** DEADLOCK DETECTED ***", "rw.RLock()"},
		{"TestCancelledRequestLeaksHandler", "*** THREADS LEAKED", "reply <- 42"},
		{"TestTransferAudit", "*** DEADLOCK DETECTED ***", "ledger.Lock()"},
		{"TestDoubleClose", "*** DATA RACE ***", "nonblocking_test.go"},
		// A send and a close that nothing orders: a race for Go's
		// detector whichever runs first (the send panics when the close
		// won, as Go's does; recovered, it would be no bug).
		{"TestSendAfterClose", "*** DATA RACE ***", "nonblocking_test.go:46"},
		{"TestUnlockedMapWrites", "*** DATA RACE ***", "nonblocking_test.go"},
		{"TestGaugeReadWithoutLock", "*** DATA RACE ***", "nonblocking_test.go"},
		{"TestCheckThenStart", "*** PROPERTY NOT VALID: ASSERTION FAILED ***", "the job started 2 times"},
		{"TestDroppedNotification", "*** DEADLOCK DETECTED ***", "<-ready"},
		{"TestWaitGroupDoneTwice", "*** CRASH IN THE PROGRAM ***", "panic: sync: negative WaitGroup counter"},
		{"TestSendUnderLock", "*** DEADLOCK DETECTED ***", "stats += <-events"},
		{"TestRangeNeverClosed", "*** DEADLOCK DETECTED ***", "for v := range items"},
		{"TestDoubleUnlock", "*** MISUSE OF THE THREAD API ***", "unlock of unlocked mutex"},
		// The race between the unlocked check and the locked write is
		// found in the first execution of the process (a cache of
		// sthread's once ordered the two goroutines there).
		{"TestLazyMapInit", "*** DATA RACE ***", "nonblocking_test.go"},
		// Time: a timer or a goroutine that had not run yet when the
		// test ended, or that fires after it (each was "exhaustive, no
		// bug" until the operations an execution's end cuts short raced
		// with what ran, and time went on after a test).
		{"TestTimeoutLeaksFastWorker", "*** THREADS LEAKED", `answer <- len("cached")`},
		{"TestExpiryBeforeStop", "*** PROPERTY NOT VALID: ASSERTION FAILED ***", "the session expired before it was used"},
		{"TestRetryLogsAfterTheTest", "*** MISUSE OF THE THREAD API ***", "t.Logf called by goroutine 2 after TestRetryLogsAfterTheTest returned"},
		{"TestTimerLogsAfterTheTest", "*** MISUSE OF THE THREAD API ***", "t.Log called by goroutine 2 after TestTimerLogsAfterTheTest returned"},
		{"TestCancelBeforeTheWorkerStarts", "*** THREADS LEAKED", `result <- "done"`},
		{"TestPollGivesUpEarly", "*** THREADS LEAKED", "<-ack"},
		// Spin loops (docs/spin.md): a poll that never blocks, whose
		// turns wait for what would end them instead of running every
		// execution to the depth bound.
		{"TestPollerOutlivesTheTest", "*** THREADS LEAKED", "report <- -1"},
		{"TestJobsAfterSpinWait", "*** DEADLOCK DETECTED ***", "jobs <- 2"},
		{"TestPollTimesOutUnderLoad", "*** PROPERTY NOT VALID: ASSERTION FAILED ***", "no connection within 50ms"},
	}
	names := make([]string, len(tests))
	for i, tt := range tests {
		names[i] = tt.run
	}
	t.Setenv("STDBG_TEST_CACHE", t.TempDir())
	out, errs, code := clirun.Stdbg(t, "test", "-count=1", "--no-save", "-run", "^("+strings.Join(names, "|")+")$", pkg)
	if code != cli.ExitBug {
		t.Errorf("stdbg test: exit %d, want %d\n%s", code, cli.ExitBug, errs)
	}
	reports := testReports(out)
	for _, tt := range tests {
		t.Run(tt.run, func(t *testing.T) {
			report, ok := reports[tt.run]
			if !ok {
				t.Fatalf("stdbg test says nothing of %s:\n%s\n%s", tt.run, out, errs)
			}
			if !strings.HasPrefix(report, "BUG ") || !strings.Contains(report, tt.banner) || !strings.Contains(report, tt.want) {
				t.Fatalf("want BUG, %s with %q:\n%s", tt.banner, tt.want, report)
			}
			if !kernelReplay.MatchString(report) || !strings.Contains(report, "--run '^"+tt.run+"$'") {
				t.Fatalf("no replay command of the test in:\n%s", report)
			}
		})
	}
}

// testResult matches the line stdbg test writes for each test.
var testResult = regexp.MustCompile(`(?m)^(ok|BUG|incomplete|unjudged|SKIP|FAIL|ERROR) +(Test\w+) `)

// testReports splits stdbg test's output by test: each test's line and
// the report under it, up to the next test's line, without the progress
// lines of the next test's search ("    stdbg: ... found").
func testReports(out string) map[string]string {
	reports := map[string]string{}
	idx := testResult.FindAllStringSubmatchIndex(out, -1)
	for i, m := range idx {
		end := len(out)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		var report strings.Builder
		for _, line := range strings.SplitAfter(out[m[0]:end], "\n") {
			if !strings.HasPrefix(line, "    stdbg: ") {
				report.WriteString(line)
			}
		}
		reports[out[m[4]:m[5]]] = report.String()
	}
	return reports
}

// kernelReplay is the replay line of a report: the schedule, quoted when it
// has more than one step.
var kernelReplay = regexp.MustCompile(`Replay: stdbg replay --schedule (?:'([^']+)'|(\S+))`)
