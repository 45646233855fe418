// Package search explores the schedules of a concurrent program.
//
// It knows nothing of C or Go: it drives an Executor, which starts fresh
// executions of the program and runs them one transition at a time, and it
// decides which thread (and which data value) goes next at every scheduling
// point. Strategies decide the order; the driver counts, bounds and reports.
package search

import (
	"fmt"
	"time"

	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// Thread is one live thread at a scheduling point.
type Thread struct {
	ID int
	// Op is the operation the thread is about to perform.
	Op syncmodel.Op
	// Enabled reports whether the thread can perform Op now.
	Enabled bool
	// Spinning reports a thread that is not enabled because it came back
	// to a state it was in having changed nothing (a spin loop), and waits
	// for a write to what it read (syncmodel.World.Await): strategies leave
	// it, but a given schedule (a replay) may run it, and it goes on as it
	// would have.
	Spinning bool
	// Alternatives, when positive, is the number of values a step of this
	// thread can take, as the model counts them (syncmodel.World.Choices):
	// the values of a data choice, or the ready cases of a select when
	// several are ready. Executors that leave it 0 get data choices only,
	// from Op.
	Alternatives int
}

// Choices returns how many values a step of this thread can take:
// Alternatives if positive, else n for a data choice (Op.Kind ==
// syncmodel.Choose), else 0.
func (t *Thread) Choices() int {
	if t.Alternatives > 0 {
		return t.Alternatives
	}
	if t.Op.Kind == syncmodel.Choose && t.Op.Arg > 0 {
		return int(t.Op.Arg)
	}
	return 0
}

// Execution is one run of the program, paused at a scheduling point.
type Execution interface {
	// Threads returns the live threads at the current scheduling point in
	// increasing id order. It is only meaningful while Ended returns nil;
	// after the end an executor may still list the threads that were left
	// (blocked in a deadlock), or nothing.
	Threads() []Thread
	// Ended returns the outcome once the execution is over, nil before.
	Ended() *Outcome
	// Step runs one transition: the given thread performs its pending
	// operation (with the given data value if it is a choice) and runs to
	// its next scheduling point. An error means the execution could not be
	// driven (the target vanished, the protocol broke), not a bug.
	Step(schedule.Step) error
	// Close ends the execution and releases what it holds.
	Close() error
}

// A Looper is an Execution that can say, once the depth bound cut it,
// which threads were looping and where ("thread 3 polls a timer at
// x.go:12"), most active first.
type Looper interface {
	Loops() []string
}

// Executor starts executions of one program.
type Executor interface {
	// Start begins a fresh execution from the program's initial state.
	Start() (Execution, error)
}

// PrefixStarter is an Executor that can use what the search knows as an
// execution starts: the steps it replays first (Strategy.Begin's prefix),
// given in full. Explore uses StartPrefix instead of Start when the
// executor has it; in a stateful search the prefix's points still report
// their states, which the search looks up.
type PrefixStarter interface {
	StartPrefix(prefix schedule.Schedule) (Execution, error)
}

// Kind classifies how an execution ended.
type Kind int

// Outcome kinds. Exited is the only clean ending; Diverged means a given
// schedule did not fit the program; every other kind is a bug.
const (
	Exited Kind = iota
	Deadlock
	Leak
	AssertionFailure
	Crash
	Misuse
	Livelock
	Timeout
	Diverged
	// Liveness is a violated temporal property (an LTL formula): a run,
	// as a lasso, that never satisfies it.
	Liveness
	// DataRace is a data race: two accesses to the same memory, one a
	// write, by threads that nothing orders (found by Go's race detector
	// in a Go target built with it).
	DataRace
)

var kindNames = [...]string{
	Exited:           "exited",
	Deadlock:         "deadlock",
	Leak:             "leak",
	AssertionFailure: "assertion",
	Crash:            "crash",
	Misuse:           "misuse",
	Livelock:         "livelock",
	Timeout:          "timeout",
	Diverged:         "diverged",
	Liveness:         "liveness",
	DataRace:         "data-race",
}

func (k Kind) String() string {
	if int(k) >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// ParseKind returns the Kind named s (as printed by Kind.String).
func ParseKind(s string) (Kind, error) {
	for k, n := range kindNames {
		if n == s {
			return Kind(k), nil
		}
	}
	return 0, fmt.Errorf("unknown outcome kind %q", s)
}

// IsBug reports whether an outcome of this kind is a bug.
func (k Kind) IsBug() bool { return k != Exited && k != Diverged }

// Outcome says how an execution ended.
type Outcome struct {
	Kind Kind
	// Message is a one-line description, e.g. "assertion `x > 0' failed".
	Message string
	// Where identifies the place of the failure, so that two failures of the
	// same kind at the same place are recognised as the same bug. Executors
	// fill it with something stable across executions (a source location,
	// or the set of blocked operations of a deadlock).
	Where string
	// Step is the number of transitions executed when the outcome arose.
	Step int
	// Redundant reports a clean ending (Exited) that is not the program's
	// end: the executor stopped the execution early because its
	// continuation is another execution's, which the search explores
	// anyway (a spurious wake-up followed by the same wait). A state graph
	// records no final state for it.
	Redundant bool
}

// Key identifies a bug for de-duplication: its kind and place.
func (o *Outcome) Key() string { return o.Kind.String() + "@" + o.Where }

// Stats describes an exploration.
type Stats struct {
	Executions  int64         // executions started
	Transitions int64         // transitions executed, prefixes replayed included
	States      int64         // distinct scheduling points visited (tree nodes)
	MaxDepthHit int64         // executions cut by the depth bound
	Pruned      int64         // executions abandoned by the strategy (e.g. sleep-set blocked)
	Elapsed     time.Duration // wall time
	Depth       int           // length of the execution under way or last ended (for progress displays)
	Bugs        int           // bugs recorded so far
	Visited     int64         // stateful search: distinct program states explored
	Revisits    int64         // stateful search: executions abandoned at a state already explored
	// Explored is the estimated fraction of the exhaustive search done
	// (Progressive), in [0, 1]; 0 when there is no estimate (a sampled
	// search, or before the first backtrack).
	Explored float64 `json:",omitempty"`
}

// Add returns s with the work of o added: its counts summed, Depth and
// Elapsed the larger of the two (two parts of one search run side by
// side; a caller that ran them one after the other sets Elapsed itself).
func (s Stats) Add(o Stats) Stats {
	s.Executions += o.Executions
	s.Transitions += o.Transitions
	s.States += o.States
	s.MaxDepthHit += o.MaxDepthHit
	s.Pruned += o.Pruned
	s.Bugs += o.Bugs
	s.Visited += o.Visited
	s.Revisits += o.Revisits
	s.Depth = max(s.Depth, o.Depth)
	s.Elapsed = max(s.Elapsed, o.Elapsed)
	if s.Explored == 0 {
		s.Explored = o.Explored // s has no estimate of its own
	}
	return s
}

// Bug is a failing schedule and how it failed.
type Bug struct {
	Schedule schedule.Schedule
	Outcome  Outcome
	// Cycle, for a livelock or a violated liveness property, is the cycle
	// of the lasso: Schedule leads to a state from which Cycle returns to
	// it, forever. Nil for other bugs.
	Cycle schedule.Schedule
	// By names the strategy that found the bug, when the search had
	// several (a portfolio's member, Attributed): "PCT (depth 3, seed
	// 7)"; "" otherwise.
	By string
}
