package grade

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/stdbg/stdbg/internal/lazyre"

	"github.com/stdbg/stdbg/engine/report"
)

// The hints (this file, and by kind of primitive hints_cond.go,
// hints_lock.go and hints_go.go) recognise the mistakes students make from
// a failure's report and the student's source: generic patterns, not
// answers per exercise.

// Hint names a recognised mistake.
type Hint struct {
	// Pattern identifies the mistake (see the Pattern constants).
	Pattern string `json:"pattern"`
	// Text says it and how to fix it.
	Text string `json:"text"`
	// Line is the line of the student's file it points at ("file:line"),
	// when one is known.
	Line string `json:"line,omitempty"`
}

// Patterns of mistakes.
const (
	PatternWaitUnderIf   = "wait-under-if"
	PatternSignalOne     = "signal-not-broadcast"
	PatternLostWakeup    = "lost-wakeup"
	PatternLockOrder     = "lock-order"
	PatternAddInside     = "waitgroup-add-in-goroutine"
	PatternUnlockMissing = "unlock-missing"
	PatternNeverClosed   = "channel-never-closed"
	PatternNoCancel      = "send-without-cancel"
	PatternUnprotected   = "unprotected-access"
	PatternNoSignal      = "missing-signal"
	PatternWaitNoLock    = "wait-without-lock"
	PatternWaitInWorker  = "wait-in-counted-goroutine"
	PatternDoneMissing   = "done-missing"
	PatternUnlockTwice   = "unlock-not-held"
	PatternCancelOpen    = "cancel-channel-not-closed"
	PatternSignalNoLock  = "signal-without-lock"
	PatternStaleWake     = "condition-undone-before-wakeup"
	PatternStarved       = "waiter-starved"
	PatternLocalSync     = "local-sync-object"
	PatternSelfSend      = "send-to-self"
	PatternSendClosed    = "send-on-closed-channel"
	PatternBusyWait      = "busy-wait"
	PatternTryGivesUp    = "trylock-gives-up"
	PatternRetryLivelock = "retry-livelock"
	PatternSplitSection  = "split-critical-section"
	PatternHeldByCaller  = "lock-held-by-caller"
	PatternNoCommonLock  = "no-common-lock"
	PatternCheckOutside  = "check-outside-lock"
	PatternPassedWithout = "passed-without-waiting"
	PatternNeverRestored = "condition-never-restored"
	PatternCloseClosed   = "close-of-closed-channel"
	PatternWaitFirst     = "wait-before-receive"
	PatternNoReceiver    = "send-with-no-receiver"
	PatternLockUpgrade   = "lock-upgrade"
	// PatternCtxNeverCancelled: a goroutine waits for its context to be
	// cancelled, and nothing cancels it.
	PatternCtxNeverCancelled = "context-never-cancelled"
	// PatternDoneEarly: a goroutine calls wg.Done and goes on working,
	// so a Wait returns while it works.
	PatternDoneEarly = "done-before-work-ends"
)

// sources reads the student's files of a build, by base name.
func (g *grader) sources(b *built) map[string][]string {
	out := map[string][]string{}
	for _, f := range g.a.Submit {
		data, err := os.ReadFile(filepath.Join(b.dir, f))
		if err != nil {
			continue
		}
		out[f] = strings.Split(string(data), "\n")
	}
	return out
}

// src is the student's source, to look at lines around a report's.
type src map[string][]string

func (s src) mine(file string) bool {
	_, ok := s[filepath.Base(file)]
	return ok
}

func at(l report.Location) string {
	return fmt.Sprintf("%s:%d", filepath.Base(l.File), l.Line)
}

var (
	ifStart    = lazyre.New(`^(\}\s*else\s+)?if\b`)
	loopStart  = lazyre.New(`^(while|for|do)\b`)
	heldBy     = lazyre.New(`held by (?:thread|goroutine)s? (\d+)`)
	returnStmt = lazyre.New(`\breturn\b`)
)

// hasPattern reports a hint of the pattern among hints.
func hasPattern(hints []Hint, pattern string) bool {
	for _, h := range hints {
		if h.Pattern == pattern {
			return true
		}
	}
	return false
}

// recognise finds the hints that fit a failure.
func recognise(r *report.Report, files map[string][]string) []Hint {
	s := src(files)
	var hints []Hint
	add := func(h *Hint) {
		if h != nil {
			hints = append(hints, *h)
		}
	}
	add(waitUnderIf(r, s))
	add(waitNoLock(r))
	add(unlockTooMany(r))
	add(lockOrder(r))
	add(lockUpgrade(r))
	add(unlockMissing(r, s))
	add(signalOne(r, s))
	add(staleWake(r))
	if !hasPattern(hints, PatternSignalOne) && !hasPattern(hints, PatternStaleWake) {
		add(neverRestored(r, s))
	}
	add(starved(r))
	add(busyWait(r, s))
	add(trylockGivesUp(r, s))
	add(retryLivelock(r))
	if !hasPattern(hints, PatternBusyWait) {
		// A harness that counts polls stops a busy-wait in code the
		// student's calls: not work done without the lock.
		add(noCommonLock(r, s))
	}
	add(checkOutsideLock(r, s))
	add(splitSection(r, s))
	add(passedWithoutWaiting(r))
	add(addInside(r, s))
	add(doneEarly(r))
	if self := selfSend(r); self != nil {
		// What else is stuck waits for the goroutine that sends to
		// itself: that is the mistake to point at.
		add(self)
	} else {
		if ctx := ctxNeverCancelled(r); ctx != nil {
			add(ctx)
		} else {
			add(neverClosed(r))
			add(cancelNotClosed(r))
		}
		add(waitFirst(r))
		if len(hints) == 0 {
			add(wgStuck(r))
		}
		add(noReceiver(r))
		if !hasPattern(hints, PatternWaitFirst) && !hasPattern(hints, PatternNoReceiver) {
			add(noCancel(r))
		}
	}
	add(sendOnClosed(r))
	add(closeClosed(r))
	if !hasPattern(hints, PatternDoneEarly) {
		// A Wait that returned too early is why nothing orders the
		// accesses: a lock is not the fix.
		add(unprotected(r, s))
	}
	add(localSync(r, s))
	return hints
}
