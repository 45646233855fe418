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
// by stdbg find -run with the kind of bug it holds and its line, minimised,
// with the command that replays it (the search confirms each bug by
// replaying it in a fresh process; TestPlainGoZoo runs replay itself).
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
	for _, tt := range tests {
		t.Run(tt.run, func(t *testing.T) {
			t.Parallel()
			run := "^" + tt.run + "$"
			out, errs, code := clirun.Stdbg(t, "find", "--run", run, pkg)
			if code != cli.ExitBug || !strings.Contains(out, tt.banner) || !strings.Contains(out, tt.want) {
				t.Fatalf("find: exit %d, want %s with %q\n%s\n%s", code, tt.banner, tt.want, out, errs)
			}
			if !kernelReplay.MatchString(out) {
				t.Fatalf("no replay command in:\n%s", out)
			}
		})
	}
}

// kernelReplay is the replay line of a report: the schedule, quoted when it
// has more than one step.
var kernelReplay = regexp.MustCompile(`Replay: stdbg replay --schedule (?:'([^']+)'|(\S+))`)
