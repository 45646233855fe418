package executor

import (
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/model/wire"
)

// Batcher is a Runtime that can be told, as an execution begins, the steps
// its first Resume calls will be (thread and result code, in order): it may
// run them without a round trip each, reading each step's report while the
// program runs the next (targetproc: RUN_BATCH). Resume is still called for
// every step, with the same values; a call that differs ends the plan, or,
// if the program already ran past it, fails with
// search.ErrNondeterministic.
type Batcher interface {
	Plan(steps []wire.Run)
}

// StartPrefix implements search.PrefixStarter: an execution that replays
// prefix. The steps it shares with the previous execution, which ran them
// and recorded their results, are announced to a Batcher runtime. An
// execution started here keeps its trace (Execution.Trace), its model
// (World) and its thread lists only until the next StartPrefix, which
// reuses their room: a search, which looks at an execution only while it
// runs, may; a caller that keeps executions uses Begin.
func (c *Executor) StartPrefix(prefix schedule.Schedule) (search.Execution, error) {
	var prev []Step
	var spare *Execution
	if c.cur != nil {
		prev = c.cur.trace
		if c.cur.searched {
			spare = c.cur
		}
	}
	plan := c.plan(prefix, prev) // (a copy: the new trace may take prev's room)
	e, err := c.beginWith(spare)
	if err != nil {
		return nil, err
	}
	e.searched = true
	if b, ok := c.rt.(Batcher); ok && len(plan) > 1 && e.outcome == nil {
		b.Plan(plan)
	}
	return e, nil
}

// plan returns the steps of prefix that prev, the previous execution's
// trace, ran to the end and went on from, with the results they had: the
// same steps from the same start give the same results. It stops before
// the program's exit, whose step may end an execution without a Resume.
func (c *Executor) plan(prefix schedule.Schedule, prev []Step) []wire.Run {
	n := min(len(prefix), len(prev)-1)
	if n < 2 {
		return nil
	}
	plan := c.planBuf[:0]
	for k := 0; k < n; k++ {
		st, was := prefix[k], &prev[k]
		if st.Thread != was.Thread || (was.Choice != schedule.NoChoice && st.Choice != was.Choice) || was.Op.Kind == syncmodel.Exit {
			break
		}
		plan = append(plan, wire.Run{Tid: was.Thread, Code: was.Result.Code})
	}
	c.planBuf = plan
	return plan
}
