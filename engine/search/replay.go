package search

import (
	"errors"
	"fmt"

	"github.com/stdbg/stdbg/model/schedule"
)

// ReplayResult is what Replay ran and how it ended.
type ReplayResult struct {
	// Outcome is how the execution ended: the program's own ending, or
	// Kind Diverged when the schedule did not fit the program. It is nil
	// when the depth bound stopped the execution first.
	Outcome *Outcome
	// Executed is what really ran, the default-policy tail included.
	Executed schedule.Schedule
	// DepthLimited reports that maxDepth transitions were run and the
	// execution had not ended.
	DepthLimited bool
	// Leftover is the number of steps of the given schedule that were not
	// run because the execution ended first (or the depth bound was
	// reached, or the schedule diverged). A Leftover > 0 with a
	// non-Diverged Outcome means the schedule is longer than the execution.
	Leftover int
}

// Replay runs schedule s on e, an execution already started and not yet
// stepped, then continues with the default policy: the thread of the
// previous step if it is still enabled, else the enabled thread of lowest
// id, with value 0 for a data choice. It stops when the execution ends or
// after maxDepth transitions in total (<= 0: no bound), schedule included.
//
// The caller owns e: Replay does not close it, so that the caller can read
// executor-specific traces afterwards.
//
// A step of s that does not fit ends the replay with a Diverged outcome whose
// Message says why (e.g. "step 3: thread 2 cannot run: it is blocked in
// pthread_mutex_lock(0x4010)") and whose Step is the number of transitions
// run. Replay returns an error only when the execution cannot be driven (the
// executor failed, or it reports no enabled thread but no ending either),
// together with the partial result.
func Replay(e Execution, s schedule.Schedule, maxDepth int) (*ReplayResult, error) {
	if e == nil {
		return nil, errors.New("replay: nil execution")
	}
	r := &ReplayResult{Executed: make(schedule.Schedule, 0, len(s))}
	prev := 0
	for k := 0; ; k++ {
		if o := e.Ended(); o != nil {
			r.Outcome = o
			r.Leftover = max(len(s)-k, 0)
			return r, nil
		}
		if maxDepth > 0 && k >= maxDepth {
			r.DepthLimited = true
			r.Leftover = max(len(s)-k, 0)
			return r, nil
		}
		ts := e.Threads()
		var st schedule.Step
		if k < len(s) {
			st = s[k]
			if i, m := fit(ts, st); m != fits {
				if firstEnabled(ts) < 0 {
					return r, stuckError(k + 1)
				}
				r.Outcome = &Outcome{
					Kind:    Diverged,
					Message: fmt.Sprintf("step %d: %s", k+1, m.explain(ts, i, st)),
					Step:    k,
				}
				r.Leftover = len(s) - k
				return r, nil
			}
		} else {
			var ok bool
			if st, ok = defaultStep(ts, prev); !ok {
				return r, stuckError(k + 1)
			}
		}
		if err := e.Step(st); err != nil {
			r.Leftover = max(len(s)-k, 0)
			return r, fmt.Errorf("step %d (thread %v): %w", k+1, st, err)
		}
		r.Executed = append(r.Executed, st)
		prev = st.Thread
	}
}

// defaultStep is the step the default policy takes at a scheduling point:
// prev if it is enabled, else the enabled thread of lowest id; value 0 for a
// data choice. It returns false if no thread is enabled.
func defaultStep(ts []Thread, prev int) (schedule.Step, bool) {
	pick := keepRunning(ts, prev, func(t *Thread) bool { return t.Enabled })
	if pick < 0 {
		return schedule.Step{}, false
	}
	st := schedule.Step{Thread: ts[pick].ID, Choice: schedule.NoChoice}
	if ts[pick].Choices() > 0 {
		st.Choice = 0
	}
	return st, true
}

// keepRunning returns the index of the thread that keeps the running one
// going among the threads ok accepts: prev if it is one of them, else the
// one of lowest id (ts is in increasing id order); -1 if ok accepts none.
func keepRunning(ts []Thread, prev int, ok func(*Thread) bool) int {
	pick := -1
	for i := range ts {
		if !ok(&ts[i]) {
			continue
		}
		if ts[i].ID == prev {
			return i
		}
		if pick < 0 {
			pick = i
		}
	}
	return pick
}

func stuckError(step int) error {
	return fmt.Errorf("step %d: no thread is enabled but the execution has not ended (executor bug)", step)
}

// firstEnabled returns the index of the first enabled thread, -1 if none.
func firstEnabled(ts []Thread) int {
	for i := range ts {
		if ts[i].Enabled {
			return i
		}
	}
	return -1
}

// misfit says why a step cannot be taken at a scheduling point.
type misfit uint8

const (
	fits          misfit = iota
	noThread             // the thread does not exist
	blocked              // the thread is not enabled
	unwanted             // a value for an operation that is no data choice
	missingChoice        // no value for a data choice
	outOfRange           // a value outside 0..n-1
)

// fit checks step s against the threads of a scheduling point. It returns
// the index of s.Thread in ts (-1 if absent) and whether s can be taken.
func fit(ts []Thread, s schedule.Step) (int, misfit) {
	i := threadAt(ts, s.Thread)
	if i < 0 {
		return -1, noThread
	}
	t := &ts[i]
	if !t.Enabled && !t.Spinning {
		return i, blocked
	}
	n := t.Choices()
	switch {
	case n == 0 && s.Choice != schedule.NoChoice:
		return i, unwanted
	case n > 0 && s.Choice == schedule.NoChoice:
		return i, missingChoice
	case n > 0 && (s.Choice < 0 || s.Choice >= n):
		return i, outOfRange
	}
	return i, fits
}

// threadAt returns the index in ts of thread id, -1 if it is not there:
// by a walk through a short list, else by a binary search, the list being
// ordered by id as executors make it, and a walk if that fails (an
// executor that does not order it).
func threadAt(ts []Thread, id int) int {
	if len(ts) <= 8 {
		for j := range ts {
			if ts[j].ID == id {
				return j
			}
		}
		return -1
	}
	i, j := 0, len(ts)
	for i < j {
		h := int(uint(i+j) >> 1)
		if ts[h].ID < id {
			i = h + 1
		} else {
			j = h
		}
	}
	if i < len(ts) && ts[i].ID == id {
		return i
	}
	for j := range ts {
		if ts[j].ID == id {
			return j
		}
	}
	return -1
}

// explain describes a misfit found by fit(ts, s) = i, m.
func (m misfit) explain(ts []Thread, i int, s schedule.Step) string {
	switch m {
	case noThread:
		return fmt.Sprintf("thread %d does not exist", s.Thread)
	case blocked:
		return fmt.Sprintf("thread %d cannot run: it is blocked in %v", s.Thread, ts[i].Op)
	case unwanted:
		return fmt.Sprintf("thread %d makes no data choice (it is about to run %v) but the schedule gives it value %d",
			s.Thread, ts[i].Op, s.Choice)
	case missingChoice:
		return fmt.Sprintf("thread %d makes a data choice among %d values (%v) but the schedule gives none; write %d:v with v in 0..%d",
			s.Thread, ts[i].Choices(), ts[i].Op, s.Thread, ts[i].Choices()-1)
	case outOfRange:
		return fmt.Sprintf("thread %d is given value %d but its data choice (%v) takes values 0..%d",
			s.Thread, s.Choice, ts[i].Op, ts[i].Choices()-1)
	}
	return fmt.Sprintf("thread %d can run", s.Thread)
}
