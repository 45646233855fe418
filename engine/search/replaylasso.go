package search

import (
	"fmt"
	"strings"

	"github.com/stdbg/stdbg/model/schedule"
)

// LassoRun is what ReplayLasso ran.
type LassoRun struct {
	// Result is the replay as a whole: Executed is the stem followed by n
	// copies of the cycle (less if the execution ended or diverged).
	Result *ReplayResult
	// States are the program states met, when the execution is Stateful
	// and reports them: States[i] is the state before step i+1, and the
	// last one the state after the last step.
	States []State
	// Returned tells, for each run of the cycle, whether it ended in the
	// state where the cycle began (known only with States).
	Returned []bool
}

// ReplayLasso runs the stem, then the cycle n times, on e (started and not
// yet stepped), one step at a time, recording the program state at every
// scheduling point when e reports states.
func ReplayLasso(e Execution, stem, cycle schedule.Schedule, n int) (*LassoRun, error) {
	full := make(schedule.Schedule, 0, len(stem)+n*len(cycle))
	full = append(full, stem...)
	for range n {
		full = append(full, cycle...)
	}
	lr := &LassoRun{Result: &ReplayResult{}}
	se, stateful := e.(Stateful)
	record := func() {
		if !stateful {
			return
		}
		if st, ok := se.State(); ok {
			lr.States = append(lr.States, st)
		}
	}
	for k, st := range full {
		if e.Ended() == nil {
			record()
		}
		r, err := Replay(e, schedule.Schedule{st}, 1)
		lr.Result.Executed = append(lr.Result.Executed, r.Executed...)
		if err != nil {
			return lr, fmt.Errorf("step %d: %w", k+1, err)
		}
		if r.Outcome != nil {
			if r.Outcome.Kind == Diverged {
				o := *r.Outcome
				o.Message = fmt.Sprintf("step %d: %s", k+1, strings.TrimPrefix(o.Message, "step 1: "))
				o.Step = k
				r.Outcome = &o
			}
			lr.Result.Outcome = r.Outcome
			lr.Result.Leftover = len(full) - len(lr.Result.Executed)
			return lr, nil
		}
	}
	if e.Ended() == nil {
		record()
		lr.Result.DepthLimited = true
	}
	if len(lr.States) == len(full)+1 && len(cycle) > 0 {
		for i := range n {
			start := len(stem) + i*len(cycle)
			lr.Returned = append(lr.Returned, lr.States[start].Hash == lr.States[start+len(cycle)].Hash)
		}
	}
	return lr, nil
}

// ParseLasso reads a schedule that may end in a cycle, as printed for
// livelocks: "1;1;2 (1;2)*". The cycle is nil when there is none.
func ParseLasso(text string) (stem, cycle schedule.Schedule, err error) {
	t := strings.TrimSpace(text)
	i := strings.Index(t, "(")
	if i < 0 {
		stem, err = schedule.Parse(t)
		return stem, nil, err
	}
	if !strings.HasSuffix(t, ")*") {
		return nil, nil, fmt.Errorf("a cycle is written (steps)* at the end: %q", text)
	}
	if s := strings.TrimSpace(t[:i]); s != "" && s != "Path =" {
		if stem, err = schedule.Parse(s); err != nil {
			return nil, nil, err
		}
	}
	// An empty cycle, "()*", is a program that ends and stays in its
	// final state.
	if cycle, err = schedule.Parse(t[i+1 : len(t)-2]); err != nil {
		return nil, nil, err
	}
	return stem, cycle, nil
}

// LassoString renders a lasso as "stem (cycle)*".
func LassoString(stem, cycle schedule.Schedule) string {
	if cycle == nil {
		return stem.String()
	}
	if len(stem) == 0 {
		return "(" + cycle.String() + ")*"
	}
	return stem.String() + " (" + cycle.String() + ")*"
}
