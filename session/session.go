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

	"github.com/stdbg/stdbg/ctarget"
	"github.com/stdbg/stdbg/executor"
	"github.com/stdbg/stdbg/hunt"
	"github.com/stdbg/stdbg/report"
	"github.com/stdbg/stdbg/schedule"
	"github.com/stdbg/stdbg/search"
	"github.com/stdbg/stdbg/symbolize"
	"github.com/stdbg/stdbg/targetproc"
	"github.com/stdbg/stdbg/wire"
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
	// Stacks and State ask the runtime for full stacks and state reports
	// at every step (a replay that explains, a stateful search).
	Stacks, State bool
	// Dir is the program's working directory ("": the target's, Target.Dir); Wrap,
	// if not empty, a command that runs it in the same process, limits
	// applied (targetproc.Config.Wrap); Library, the C interposition library
	// to preload ("" the one stdbg builds). A grader confines a
	// submission with them.
	Dir     string
	Wrap    []string
	Library string
}

// Session is a running target: its processes, symbols and checker.
type Session struct {
	Target *Target
	Proc   *targetproc.Process
	Syms   *symbolize.Symbolizer
	// Checker is the executor of the target's executions.
	Checker *executor.Executor
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
	if o.Stacks {
		flags |= wire.FlagStacks
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
	})
	if err != nil {
		if errors.Is(err, ctarget.ErrNoCompiler) {
			return nil, &UsageError{err}
		}
		return nil, err
	}
	mods := make([]symbolize.Module, 0, len(p.Modules()))
	for _, m := range p.Modules() {
		mods = append(mods, symbolize.Module{Path: m.Path, Bias: m.Bias, Start: m.Start, End: m.End})
	}
	// A C or C++ object inside a global array or structure is named by
	// its element or member (forks[1], b.not_empty), from the DWARF types.
	s := &Session{Target: t, Proc: p, Syms: symbolize.NewWithOptions(mods, symbolize.Options{Types: !t.Go}), opts: o}
	s.Checker = executor.New(p, executor.Options{FastExit: o.FastExit, Locate: s.locate, Races: !t.Go && o.Races,
		Variable: s.variable, SpuriousWakeups: !t.Go && o.SpuriousWakeups})
	return s, nil
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
	f := s.Syms.Return(pc)
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
	name, _ := s.Syms.Data(addr)
	return name
}

// Close ends the target's processes and releases the CPUs it held.
func (s *Session) Close() {
	s.ReleaseCPUs()
	s.Proc.Close()
	s.Syms.Close()
}

// Nondeterminism is the guess at why a bug's replay ended otherwise than
// the search's execution (hunt.Config.Nondeterminism).
const Nondeterminism = "the program may do something nondeterministic between thread operations"

// ReuseHints adds to that guess, for a Go program run execution after
// execution in one process, that it may keep state from one to the next
// (hunt.Config.Hints).
func (s *Session) ReuseHints() []string {
	if s.Proc.Reused() > 0 && s.Target.Go {
		return []string{"the bug was found in a process that had run earlier executions and the replay ran in a fresh one: " +
			"the program may keep state from one execution to the next (package-level variables); STDBG_REUSE=0 runs every execution in a fresh process"}
	}
	return nil
}

// Explain replays a bug's schedule with full stacks (a lasso's stem and
// one run of its cycle, with state reports), for its report
// (hunt.Config.Explain).
func (s *Session) Explain(bug search.Bug, maxDepth int) (*hunt.Explanation, error) {
	if bug.Cycle != nil {
		return s.explainLasso(bug)
	}
	old := s.Proc.Flags()
	s.Proc.SetFlags(old | wire.FlagStacks)
	defer s.Proc.SetFlags(old)
	e, err := s.Checker.Begin()
	if err != nil {
		return nil, err
	}
	defer e.Close()
	rr, err := search.Replay(e, bug.Schedule, maxDepth)
	if err != nil {
		return nil, err
	}
	return &hunt.Explanation{Report: report.Build(e, rr.Outcome, s.Syms), Outcome: rr.Outcome}, nil
}

// explainLasso replays a livelock or liveness violation (stem and one run
// of the cycle) with full stacks and state reports.
func (s *Session) explainLasso(bug search.Bug) (*hunt.Explanation, error) {
	old := s.Proc.Flags()
	s.Proc.SetFlags(old | wire.FlagStacks | wire.FlagState)
	defer s.Proc.SetFlags(old)
	e, err := s.Checker.Begin()
	if err != nil {
		return nil, err
	}
	defer e.Close()
	lr, err := search.ReplayLasso(e, bug.Schedule, bug.Cycle, 1)
	if err != nil {
		return nil, err
	}
	return &hunt.Explanation{Report: report.Build(e, lr.Result.Outcome, s.Syms), Outcome: lr.Result.Outcome, Lasso: lr}, nil
}

// Report replays a bug's schedule with full stacks and builds its report,
// marked with the bug whatever the replay gave (hunt.Mark).
func (s *Session) Report(bug search.Bug, maxDepth int) (*report.Report, error) {
	x, err := s.Explain(bug, maxDepth)
	if err != nil {
		return nil, fmt.Errorf("replaying the bug: %w", err)
	}
	hunt.Mark(x, bug, Nondeterminism, s.ReuseHints)
	return x.Report, nil
}

// ReplayFresh runs a schedule in a fresh process of the target and returns
// how it ends.
func (s *Session) ReplayFresh(sched schedule.Schedule, maxDepth int) (o *search.Outcome, err error) {
	return s.replayFresh(context.Background(), sched, maxDepth)
}

// replayFresh is ReplayFresh stopped by ctx between two steps, with an
// error wrapping ctx.Err().
func (s *Session) replayFresh(ctx context.Context, sched schedule.Schedule, maxDepth int) (o *search.Outcome, err error) {
	s.Proc.WithoutReuse(func() {
		var e search.Execution
		if e, err = s.Checker.Begin(); err != nil {
			return
		}
		defer e.Close()
		var rr *search.ReplayResult
		if rr, err = search.Replay(heeding{e, ctx}, sched, maxDepth); err == nil {
			o = rr.Outcome
		}
	})
	return o, err
}

// heeding is an execution whose steps fail once ctx is done.
type heeding struct {
	search.Execution
	ctx context.Context
}

func (h heeding) Step(st schedule.Step) error {
	if err := h.ctx.Err(); err != nil {
		return err
	}
	return h.Execution.Step(st)
}

// ConfirmFresh replays each bug (but lassos) in a fresh process of the
// program and reports whether each ends the same way: a Go program runs
// many executions in one process, and one that keeps state from one to the
// next may fail in a way that no fresh run shows.
func (s *Session) ConfirmFresh(bugs []search.Bug, maxDepth int) bool {
	for _, bug := range bugs {
		if bug.Cycle != nil {
			continue
		}
		o, err := s.ReplayFresh(bug.Schedule, maxDepth)
		if err != nil || o == nil || o.Kind != bug.Outcome.Kind || o.Where != bug.Outcome.Where {
			return false
		}
	}
	return true
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
	if err := ws.Proc.Pin(pls[w]); err != nil && s.opts.Stderr != nil {
		fmt.Fprintln(s.opts.Stderr, "stdbg: warning:", err)
	}
}
