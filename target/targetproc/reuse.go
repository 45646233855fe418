package targetproc

import (
	"os"
	"time"

	"github.com/stdbg/stdbg/model/wire"
)

// Reuse: a child of the C library that answers RESET by resetting itself
// in place (wire.FlagReuse), the threads it keeps parked for the program
// (the pool) and a Go program that runs its checked function afresh
// (docs/protocol.md, "Reuse").

// reusable reports whether executions with these flags may reuse a child:
// executions that end fast, and a child that can start afresh in place:
// the C library's fork server resets its memory (with state reports too:
// a reset child hashes every state as a fresh one, TestReusedChildStates
// in target/ctarget), and a Go program (Respawn without the library)
// starts the next execution of its checked function in the same process
// (without state reports).
func (p *Process) reusable(flags uint32) bool {
	goProgram := p.cfg.Respawn && p.cfg.NoPreload && flags&wire.FlagState == 0
	cChild := !p.cfg.Respawn && !p.cfg.NoPreload
	return !p.cfg.NoReuse && (goProgram || cChild) && reuseAllowed &&
		flags&wire.FlagFastExit != 0
}

// WantsPool reports whether this process keeps threads parked for the
// program between executions (Config.KeepThreads, in reused children of
// the C library) and has not run an execution yet: then the checker
// measures how many threads one starts, and calls SetPool
// (executor.Pooler). In a stateful search a pooled thread's stack below
// its start routine is zeros again before each routine it runs, as a new
// thread's is (rt/pool.c), so that its states hash as in a fresh child.
func (p *Process) WantsPool() bool {
	flags := p.nextFlags()
	return poolAllowed && p.cfg.KeepThreads && !p.cfg.NoPreload && p.gen == 0 && flags&wire.FlagReuse != 0
}

// nextFlags are the wire flags of the next execution: the configured ones,
// the placement's and FlagReuse where the child may be reset.
func (p *Process) nextFlags() uint32 {
	flags := p.cfg.Flags
	if p.placed {
		flags |= p.place.flags()
	}
	if p.reusable(flags) {
		flags |= wire.FlagReuse
	}
	if (p.cfg.NoContexts || !contextsAllowed) && !p.cfg.NoPreload {
		flags |= wire.FlagNoCtx
	}
	return flags
}

// SetPool sets how many threads every child that may be reused keeps
// parked for the program's threads 2 to n+1 (at most 64): called before
// the first execution, so that every child has the same pool and the
// program sees the same memory layout in every execution. A child of the
// pool it already has (a program that starts no thread, after the probe
// execution of executor.Pooler with none) stays, to serve the next
// execution reset, sparing the fork of a new one and its snapshot (an
// eighth of the CPU time of an empty program's whole find).
func (p *Process) SetPool(n int) {
	n = min(max(n, 0), maxPool)
	if n == p.pool {
		return
	}
	p.dropChild()
	p.pool = n
}

// dropChild ends the current execution and kills a child parked for the
// next one: the next execution forks a child with the configuration as it
// is then.
func (p *Process) dropChild() {
	if p.alive {
		p.End(false)
	}
	if p.parked {
		p.parked = false
		p.killChild()
	}
}

// Pooled returns how many threads a reused child keeps parked for the
// program between executions (SetPool).
func (p *Process) Pooled() int { return p.pool }

// maxPool is the most threads a child keeps (POOL_MAX in rt/pool.c).
const maxPool = 64

// poolAllowed is false when $STDBG_POOL=0.
var poolAllowed = os.Getenv("STDBG_POOL") != "0"

// Contexts reports whether executions may run the program's threads as
// contexts on one kernel thread (Config.NoContexts): a reused child of the
// C library with a thread pool, unless turned off. The child itself leaves
// them off where the program could tell (docs/protocol.md, "Contexts").
func (p *Process) Contexts() bool {
	return p.pool > 0 && !p.cfg.NoContexts && contextsAllowed && !p.cfg.NoPreload
}

// DisableContexts makes every later execution hand over between real
// threads, in a child that never used contexts: for a bug found with
// contexts that a fresh child does not show.
func (p *Process) DisableContexts() {
	p.cfg.NoContexts = true
	p.dropChild()
}

// contextsAllowed is false when $STDBG_CONTEXTS=0.
var contextsAllowed = os.Getenv("STDBG_CONTEXTS") != "0"

// reuseAllowed is false when $STDBG_REUSE=0.
var reuseAllowed = os.Getenv("STDBG_REUSE") != "0"

// DisableReuse makes every later execution start in a fresh child (or, for
// a Go program, a fresh process), as Config.NoReuse does: for a program that
// keeps state from one execution to the next.
func (p *Process) DisableReuse() { p.cfg.NoReuse = true }

// WithoutReuse runs f with every execution it begins in a fresh child (or
// a fresh process): to confirm that a schedule fails the same way in a
// process that ran nothing before.
func (p *Process) WithoutReuse(f func()) {
	old := p.cfg.NoReuse
	p.cfg.NoReuse = true
	defer func() { p.cfg.NoReuse = old }()
	f()
}

// reuseStartTimeout bounds a reset and the start after it; a child that
// takes longer is replaced by a fresh fork.
const reuseStartTimeout = 5 * time.Second

// beginReused collects the start of the next execution from the child told
// to reset by End. It reports false when the child could not reset (it
// refused and left, or died, or did not report in time): the caller then
// forks a fresh one.
func (p *Process) beginReused() ([]wire.Event, bool) {
	p.ostids = make(map[int]int)
	p.alive = true
	evs, err := p.collect(1, min(p.cfg.StartTimeout, reuseStartTimeout))
	if err != nil || !p.alive {
		p.alive = false
		return nil, false
	}
	for _, ev := range evs {
		switch ev.(type) {
		case *wire.Pending, wire.Note, wire.State:
		default:
			p.alive = false
			return nil, false
		}
	}
	p.reused++
	return evs, true
}

// waitsAfter reports whether a child that reported failure f waits for a
// RESET: with reuse, after a failure that leaves the process intact.
func (p *Process) waitsAfter(f wire.Failure) bool {
	if p.flags&wire.FlagReuse == 0 {
		return false
	}
	if p.cfg.Respawn {
		// A Go program reports every failure it survives (a recovered
		// panic, a failed assertion, a goroutine that ran too long) and
		// waits; its death is seen as such.
		return true
	}
	switch f.Kind {
	case wire.FailAssert, wire.FailUser, wire.FailAbort:
		return true
	}
	return false
}

// Reused returns how many executions started in a child reset in place
// instead of a fresh fork (wire.FlagReuse).
func (p *Process) Reused() int64 { return p.reused }
