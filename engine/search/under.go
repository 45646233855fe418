package search

import (
	"fmt"

	"github.com/stdbg/stdbg/model/schedule"
)

// Under returns an Executor whose executions start after the given prefix
// of steps: exploring it explores the subtree of schedules that begin with
// prefix. Schedules found there are relative to the prefix; prepend it to
// replay them from the start. An execution that cannot follow the prefix
// (it ends, or a step does not fit) makes Start fail.
func Under(ex Executor, prefix schedule.Schedule) Executor {
	return &under{ex: ex, prefix: prefix}
}

type under struct {
	ex     Executor
	prefix schedule.Schedule
}

func (u *under) Start() (Execution, error) {
	e, err := u.ex.Start()
	if err != nil {
		return nil, err
	}
	for i, st := range u.prefix {
		if o := e.Ended(); o != nil {
			e.Close()
			return nil, fmt.Errorf("prefix step %d: the execution already ended (%s)", i+1, o.Kind)
		}
		if j, m := fit(e.Threads(), st); m != fits {
			e.Close()
			return nil, fmt.Errorf("prefix step %d: %s", i+1, m.explain(e.Threads(), j, st))
		}
		if err := e.Step(st); err != nil {
			e.Close()
			return nil, fmt.Errorf("prefix step %d: %w", i+1, err)
		}
	}
	return e, nil
}
