package sthread

import (
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread/internal/rt"
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
	r, chk := rt.Start(f, cfg.runtime(1, cfg.stateful()))
	return chk, func() { r.Stop(); checkMu.Unlock() }
}
