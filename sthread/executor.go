package sthread

import (
	"github.com/stdbg/stdbg/checker"
	"github.com/stdbg/stdbg/search"
)

// Executor returns a search.Executor of f, for programs that drive a search
// themselves (benchmarks, other strategies, counting traces), and the
// function that releases it. Until then no other check can run in the
// process: Check, Explore and the executor share the runtime. With Visited
// (or Livelock, LTL) its executions report the program's state, for
// search.Options.Visited.
func Executor(f func(), opts ...Option) (ex search.Executor, release func()) {
	cfg := newConfig(opts)
	checkMu.Lock()
	r := newRunner(f, cfg, 1)
	r.state = cfg.stateful()
	r.start()
	chk := checker.New(r, checker.Options{FastExit: true, Locate: locate})
	return chk, func() { r.stop(); checkMu.Unlock() }
}
