package session

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/internal/cachedir"
	"github.com/stdbg/stdbg/internal/symbolize"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
	"github.com/stdbg/stdbg/target/targetsearch"
)

// Options say how to run a target's processes.
type Options struct {
	// Stdout and Stderr receive the program's output (io.Discard: none).
	Stdout, Stderr io.Writer
	// Env are more NAME=VALUE entries for the program, after the
	// target's own.
	Env []string
	// FastExit ends an execution as soon as a thread is granted its exit
	// (a search's executions need no atexit handlers; a replay does).
	FastExit bool
	// TransitionTimeout and StartTimeout bound a transition and the
	// program's start (0: the defaults).
	TransitionTimeout, StartTimeout time.Duration
	// Races turns on C's data race detector; SpuriousWakeups lets C's
	// condition waits return once without a signal (executor.Options).
	Races, SpuriousWakeups bool
	// NoReuse runs every execution in a fresh process; KeepThreads keeps
	// a process's threads parked between executions (a search).
	NoReuse, KeepThreads bool
	// State asks the runtime for state reports at every step (a stateful
	// search, the replay of a lasso), and a C program's library to track
	// what state identity needs from the program's start. (Full stacks
	// are asked for by the runs that need them: a replay, Find.Stacks.)
	State bool
	// Dir is the program's working directory ("": the target's, Target.Dir); Wrap,
	// if not empty, a command that runs it in the same process, limits
	// applied (targetproc.Config.Wrap); Library, the C interposition library
	// to preload ("" the one stdbg builds). A grader confines a
	// submission with them.
	Dir     string
	Wrap    []string
	Library string
	// DeferStart starts a Go target's first process when the first
	// execution run from here needs it, not in Start: a search inside the
	// target starts processes of its own, and never needs it (stdbg test
	// searches each test so). Start then only checks the executable.
	DeferStart bool
	// Served, if not nil, is asked for the result of a search inside the
	// target in one process before one starts (cfg is how it would
	// start): a process that searches several tests in turn
	// (targetsearch.Batch, package gotest) may have run it already. It
	// returns a clean result (targetsearch.Result.Clean), or nil to
	// search as usual.
	Served func(ctx context.Context, cfg targetsearch.Config) *targetsearch.Found
}

// Session is a running target: its processes, symbols and checker,
// which a front end reaches only through the session's methods: Find,
// Replay, Explain, Estimate.
type Session struct {
	Target *Target
	proc   *targetproc.Process
	// syms names the program's addresses (symbols): made from the
	// first process's greeting.
	syms *symbolize.Symbolizer
	// checker is the executor of the target's executions.
	checker *executor.Executor
	opts    Options
	// cpus are the CPUs a search holds (ClaimCPUs), nil without.
	cpus *targetproc.CPUClaim
}

// stateEnv is the environment that makes the C library track what state
// identity needs from the start of the program.
var stateEnv = []string{"STDBG_STATE=1"}

// Start launches t under the library.
func Start(t *Target, o Options) (*Session, error) {
	var flags uint32
	if o.FastExit {
		flags |= wire.FlagFastExit
	}
	if o.State {
		flags |= wire.FlagState
	}
	env := append(append([]string(nil), t.Env...), o.Env...)
	if o.State && !t.Go {
		env = append(env, stateEnv...)
	}
	// A C program runs with the interposition library preloaded; a Go
	// program brings its runtime.
	start := ctarget.Start
	if t.Go {
		start = targetproc.Start
	}
	p, err := start(targetproc.Config{
		Binary:            t.Binary,
		Args:              t.RunArgs(),
		Dir:               cmp.Or(o.Dir, t.Dir),
		Respawn:           t.Go,
		NoPreload:         t.Go,
		Env:               envWith(env),
		Wrap:              o.Wrap,
		Library:           o.Library,
		Stdout:            o.Stdout,
		Stderr:            o.Stderr,
		TransitionTimeout: o.TransitionTimeout,
		StartTimeout:      o.StartTimeout,
		Flags:             flags,
		NoReuse:           o.NoReuse || t.KeepsState(),
		KeepThreads:       o.KeepThreads,
		Lazy:              t.Go && o.DeferStart,
	})
	if err != nil {
		if errors.Is(err, ctarget.ErrNoCompiler) {
			return nil, &UsageError{err}
		}
		return nil, err
	}
	s := &Session{Target: t, proc: p, opts: o}
	s.checker = executor.New(p, executor.Options{FastExit: o.FastExit, Locate: s.locate, Races: !t.Go && o.Races,
		Variable: s.variable, SpuriousWakeups: !t.Go && o.SpuriousWakeups, MaxStall: t.maxStall()})
	return s, nil
}

// symbols returns the symbolizer of the program's addresses, made from the
// greeting of its first process (started now, for a session started with
// DeferStart that has run no execution yet: the symbols are those of the
// processes to come).
func (s *Session) symbols() *symbolize.Symbolizer {
	if s.syms != nil {
		return s.syms
	}
	if !s.proc.Launched() {
		if err := s.proc.Launch(); err != nil {
			return symbolize.New(nil) // no process: nothing to name, and nothing kept
		}
	}
	mods := make([]symbolize.Module, 0, len(s.proc.Modules()))
	for _, m := range s.proc.Modules() {
		mods = append(mods, symbolize.Module{Path: m.Path, Bias: m.Bias, Start: m.Start, End: m.End})
	}
	// A C or C++ object inside a global array or structure is named by
	// its element or member (forks[1], b.not_empty), from the DWARF types.
	// The tables read from debug information (the C library's takes
	// seconds) are kept in stdbg's cache for the next command.
	opts := symbolize.Options{Types: !s.Target.Go}
	if dir, err := cachedir.Dir(); err == nil {
		opts.CacheDir = dir
	}
	s.syms = symbolize.NewWithOptions(mods, opts)
	return s.syms
}

// envWith returns stdbg's environment plus extra NAME=VALUE entries, or nil
// (inherit) when there are none.
func envWith(extra []string) []string {
	if len(extra) == 0 {
		return nil
	}
	return append(os.Environ(), extra...)
}

// locate names a place stably across runs: file:line of the first frame.
func (s *Session) locate(pc uint64) string {
	f := s.symbols().Return(pc)
	if filepath.Base(f.File) == "stdbg.h" {
		// An annotation's own code: its caller tells where it is.
		return ""
	}
	if f.File != "" && f.Line > 0 {
		return filepath.Base(f.File) + ":" + fmt.Sprint(f.Line)
	}
	if f.Func != "" {
		return f.Func
	}
	return ""
}

// variable names the variable at a data address, "" if unknown.
func (s *Session) variable(addr uint64) string {
	name, _ := s.symbols().Data(addr)
	return name
}

// Pid is the process id of the target's first process (a fork server's,
// or the process of the execution under way): a front end that confines
// the program finds its process group from it. (A session started with
// DeferStart starts that process now if it has none.)
func (s *Session) Pid() int {
	s.symbols()
	return s.proc.Pid()
}

// Close ends the target's processes and releases the CPUs it held.
func (s *Session) Close() {
	s.ReleaseCPUs()
	s.proc.Close()
	if s.syms != nil {
		s.syms.Close()
	}
}

// Nondeterminism is the guess at why a bug's replay ended otherwise than
// the search's execution (hunt.Config.Nondeterminism).
const Nondeterminism = "the program may do something nondeterministic between thread operations"

// ReuseHints adds to that guess, for a Go program run execution after
// execution in one process, that it may keep state from one to the next
// (hunt.Config.Hints).
func (s *Session) ReuseHints() []string {
	if s.proc.Reused() > 0 && s.Target.Go {
		return []string{"the bug was found in a process that had run earlier executions and the replay ran in a fresh one: " +
			"the program may keep state from one execution to the next (package-level variables); STDBG_REUSE=0 runs every execution in a fresh process"}
	}
	return nil
}

// ClaimCPUs holds CPUs for a search of jobs copies of the program (each
// beside its checker thread, docs/parallel.md) and places this session's
// copy on the first; Close releases them.
func (s *Session) ClaimCPUs(jobs int) {
	s.cpus = targetproc.ClaimCPUs(2 * jobs)
	s.place(s, 0, 1)
}

// ReleaseCPUs gives back the CPUs ClaimCPUs held.
func (s *Session) ReleaseCPUs() {
	if s.cpus != nil {
		s.cpus.Release()
		s.cpus = nil
	}
}

// place puts worker w of workers (its checker thread and its copy of the
// program, in session ws) on the CPUs the search holds; without CPUs, or
// if the program cannot be placed, the kernel places them.
func (s *Session) place(ws *Session, w, workers int) {
	if s.cpus == nil {
		return
	}
	pls := s.cpus.Place(workers)
	if w >= len(pls) {
		return
	}
	if err := ws.proc.Pin(pls[w]); err != nil && s.opts.Stderr != nil {
		fmt.Fprintln(s.opts.Stderr, "stdbg: warning:", err)
	}
}
