package sthread

import (
	"bytes"
	"os"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/internal/rtnames"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// Debugger support. When sthread replays one schedule in process (ReplayEnv,
// Replay, RunSchedule, a Run program started with ReplayEnv), it publishes
// where the replay stands in debugState and calls stepHook before every
// step, and once more when the execution is over. A debugger that breaks on
// stepHook and reads debugState follows the schedule one step at a time:
// stdbg replay --dlv drives Delve that way (package dlvbridge).
//
// Nothing the debugger reads is computed for it: the values are plain
// stores into a package variable, and the debugger's reads of memory do not
// run code of the process, so evaluating expressions while stopped does not
// change the replay. Under a debugger (a tracer is attached to the process)
// the transition watchdog is off, since a user stopped in the middle of a
// transition is not a goroutine that runs for ever.

// Names under which a debugger finds the hook and the state, as Delve
// spells them.
const (
	// HookFunc is the function called before every replayed step.
	HookFunc = rtnames.HookFunc
	// StateVar is the expression of the published replay state.
	StateVar = rtnames.StateVar
)

// debugInfo is the replay state a debugger reads at stepHook.
type debugInfo struct {
	// Step is the number of the step about to run, from 1; once the
	// execution is over, the number of steps it ran.
	Step int
	// Steps is the length of the schedule being replayed (steps past it
	// follow the default policy).
	Steps int
	// Thread is the thread that runs at Step, 0 once the execution is
	// over.
	Thread int
	// Choice is the data choice of the step, -1 for none.
	Choice int
	// Entry is the entry address of the function Thread runs, where a
	// goroutine about to return is shown.
	Entry uint64
	// Over is set when the execution is over, Outcome then says how it
	// ended ("" when it ended cleanly).
	Over    bool
	Outcome string
	// Goroutines holds the goroutine id of each thread: thread i+1 runs
	// in goroutine Goroutines[i]. Goroutine ids change from run to run.
	Goroutines []int64
	// Hits counts the calls of stepHook.
	Hits uint64
}

// debugState is the replay state; only the goroutine driving the replay
// writes it, while every other goroutine of the execution is parked.
var debugState debugInfo

// stepHook is where a debugger stops before each replayed step. Its store
// keeps it a real function even in an optimised build.
//
//go:noinline
func stepHook() {
	debugState.Hits++
}

// debugExec is a replayed execution that publishes its steps.
type debugExec struct {
	search.Execution
	ex    *rt.Execution
	steps int
	k     int
}

// newDebugExec wraps e, the execution ex of a replay of s.
func newDebugExec(e search.Execution, ex *rt.Execution, s schedule.Schedule) *debugExec {
	debugState = debugInfo{Steps: len(s), Goroutines: debugState.Goroutines[:0], Hits: debugState.Hits}
	return &debugExec{Execution: e, ex: ex, steps: len(s)}
}

// Step publishes the step about to run, calls the hook and runs it.
func (d *debugExec) Step(st schedule.Step) error {
	d.k++
	d.publish(d.k, st.Thread, st.Choice, false, "")
	stepHook()
	return d.Execution.Step(st)
}

// finish publishes the end of the execution and calls the hook.
func (d *debugExec) finish(outcome string) {
	d.publish(d.k, 0, schedule.NoChoice, true, outcome)
	stepHook()
}

func (d *debugExec) publish(k, tid, choice int, over bool, outcome string) {
	s := &debugState
	s.Step, s.Steps, s.Thread, s.Choice, s.Over, s.Outcome = k, d.steps, tid, choice, over, outcome
	s.Entry = 0
	s.Goroutines = s.Goroutines[:0]
	for t := 1; t <= d.ex.Threads(); t++ {
		g, entry := d.ex.Thread(t)
		s.Goroutines = append(s.Goroutines, g)
		if t == tid {
			s.Entry = uint64(entry)
		}
	}
}

// traced reports whether a debugger is attached to the process.
func traced() bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	i := bytes.Index(b, []byte("\nTracerPid:"))
	if i < 0 {
		return false
	}
	line := b[i+len("\nTracerPid:"):]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	line = bytes.TrimSpace(line)
	return len(line) > 0 && !bytes.Equal(line, []byte("0"))
}
