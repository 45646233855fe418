package executor

import "github.com/stdbg/stdbg/model/schedule"

// A Pooler is a Runtime that can keep threads parked for the program
// between executions instead of creating them in each (targetproc.Process in
// reused children). It wants to know how many threads an execution starts
// before the first one, so that every execution sees the same process:
// WantsPool says whether it would keep any, SetPool tells it how many.
type Pooler interface {
	WantsPool() bool
	SetPool(n int)
}

// probeSteps bounds the execution that counts the program's threads.
const probeSteps = 5000

// probe runs one execution, each step given to the lowest enabled thread,
// and returns how many threads besides the first it saw (0 if it could not
// run). Its outcome does not matter: the search runs the program again.
func (c *Executor) probe() int {
	e, err := c.begin(nil)
	if err != nil {
		return 0
	}
	defer e.Close()
	most := 1
	for range probeSteps {
		if e.Ended() != nil {
			break
		}
		next := 0
		for _, th := range e.Threads() {
			most = max(most, th.ID)
			if next == 0 && th.Enabled {
				next = th.ID
			}
		}
		if next == 0 {
			break
		}
		if e.Step(schedule.Step{Thread: next, Choice: 0}) != nil {
			break
		}
	}
	for _, th := range e.Threads() {
		most = max(most, th.ID)
	}
	return most - 1
}
