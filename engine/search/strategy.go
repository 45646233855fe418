package search

import (
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// Strategy decides which schedules Explore runs and in which order.
//
// Exploration is stateless: every execution starts the program afresh
// (Executor.Start) and nothing of an earlier execution survives in the
// program. A strategy keeps whatever it needs across executions itself (a
// DFS stack, DPOR's wakeup trees, PCT's priorities, a random source). One
// execution goes through the strategy like this:
//
//	prefix, ok := st.Begin()       // ok == false: nothing left; see Exhausted
//	replay prefix                  // no calls to the strategy
//	for each later scheduling point:
//		step, ok := st.Next(point) // ok == false: abandon the execution
//	st.End(&report)                // how it ended, and what ran
//
// The prefix holds the steps whose scheduling points the strategy has
// already been shown through Next in earlier executions (the path to a
// backtracking point); Explore replays them without consulting the strategy
// and checks that each fits and that the execution does not end inside the
// prefix, so a program that does not repeat itself under the same schedule
// is reported (ErrNondeterministic) rather than explored wrongly. Every step returned by Next leads to a scheduling point Explore
// counts as a new state (Stats.States); for strategies that never show the
// same tree node twice through Next (DFS, DPOR) that is the number of
// distinct nodes, for others (random walks) it is an upper bound.
//
// Explore calls the methods from a single goroutine, in the order above, and
// calls Init before anything else, so a strategy value can be reused for
// several explorations, one at a time. Slices handed to the strategy (Point's
// Threads, Report's Trace) belong to the caller and are only valid during the
// call; a strategy copies what it keeps. Conversely Explore only reads the
// prefix returned by Begin, until the End that follows.
//
// Each strategy lives in a file of its own; NewDFS is the exhaustive one.
type Strategy interface {
	// Init resets the strategy for a new exploration under the given bounds.
	Init(Config)
	// Begin prepares the next execution. It returns the steps to replay
	// from the initial state before Next is consulted, and false when no
	// execution is left to run.
	Begin() (prefix schedule.Schedule, ok bool)
	// Next chooses the step to run at a scheduling point after the prefix.
	// At least one thread of p.Threads is enabled. The step must name an
	// enabled thread and, if its operation is a data choice (Thread.Choices
	// n > 0), carry a value in 0..n-1, else schedule.NoChoice. Returning
	// false abandons the execution (it is closed and reported to End as
	// pruned), e.g. when DPOR finds it sleep-set blocked.
	Next(p Point) (schedule.Step, bool)
	// End reports how the current execution ended.
	End(*Report)
	// Exhausted reports, once Begin has returned false, whether every
	// schedule within the bounds has been explored. Exhaustive strategies
	// return true; sampling strategies (random walk, PCT) return false.
	Exhausted() bool
}

// Config is what a strategy is told about an exploration before it starts.
type Config struct {
	// MaxDepth is the number of transitions after which Explore cuts an
	// execution; <= 0 means unbounded. Explore enforces it, strategies need
	// not; some (PCT) use it to spread their decisions.
	MaxDepth int
}

// Point is a scheduling point as shown to Strategy.Next.
type Point struct {
	// Depth is the number of transitions executed so far in this
	// execution: 0 at the initial point.
	Depth int
	// Threads are the live threads in increasing id order, enabled or not,
	// each with the operation it is about to perform.
	Threads []Thread
	// Prev is the thread that ran the previous step, 0 at the initial
	// point. It may have finished since, and so be absent from Threads.
	Prev int
}

// Event is one executed transition: the step and the operation it performed.
type Event struct {
	Step schedule.Step
	Op   syncmodel.Op
}

// Report tells a strategy how an execution ended.
type Report struct {
	// Outcome is how the execution ended, nil if it was cut by the depth
	// bound or abandoned by the strategy.
	Outcome *Outcome
	// Trace is every transition executed, prefix included, in order: the
	// schedule of the execution with the operation of each step. Only valid
	// during End.
	Trace []Event
	// DepthLimited reports that the execution was cut at Config.MaxDepth.
	DepthLimited bool
	// Pruned reports that the strategy abandoned the execution (Next
	// returned false).
	Pruned bool
	// Final are the live threads at the point where the execution stopped,
	// with their pending operations, as Execution.Threads reported them
	// there: the point that was cut by the depth bound or abandoned, or,
	// when the execution ended, whatever the executor still shows (the
	// blocked threads of a deadlock; often nothing). Only valid during End.
	// DPOR needs them: an operation that would come next may race with one
	// that ran.
	Final []Thread
}
