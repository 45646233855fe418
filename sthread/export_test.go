package sthread

import (
	"github.com/stdbg/stdbg/checker"
	"github.com/stdbg/stdbg/search"
)

// ExecutorForTest returns an executor of f for tests that drive a search
// themselves, and the function that releases it. The caller holds the
// in-process checking lock until then.
func ExecutorForTest(f func()) (search.Executor, func()) {
	checkMu.Lock()
	r := newRunner(f, newConfig(nil), 1)
	r.start()
	chk := checker.New(r, checker.Options{FastExit: true, Locate: locate})
	return chk, func() { r.stop(); checkMu.Unlock() }
}
