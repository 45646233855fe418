// Package schedule defines stdbg's schedules: the sequence of thread choices
// (and data choices) that determines one execution of a concurrent program,
// with a text form that round-trips exactly.
//
// The text form is the paper's "1;1;2": thread ids separated by semicolons.
// A step whose thread made a data choice (stdbg_choose, sthread.Choose) is
// written thread:value, as in "1;2:1;1"; so is a select that had several
// ready cases, the value being the index of the case that proceeded among
// the ready ones.
package schedule

import (
	"fmt"
	"strconv"
	"strings"
)

// NoChoice is the Choice of a step that made no data choice.
const NoChoice = -1

// Step is one transition: the thread that runs and, if its operation is a
// data choice, the value it receives.
type Step struct {
	Thread int
	Choice int
}

// Schedule is a sequence of steps, one per transition.
type Schedule []Step

// Threads builds a schedule without data choices from thread ids.
func Threads(ids ...int) Schedule {
	s := make(Schedule, len(ids))
	for i, id := range ids {
		s[i] = Step{Thread: id, Choice: NoChoice}
	}
	return s
}

// String returns the text form, e.g. "1;1;2" or "1;2:1".
func (s Schedule) String() string {
	var b strings.Builder
	for i, st := range s {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(st.String())
	}
	return b.String()
}

// String returns the text form of one step: "2" or "2:1".
func (st Step) String() string {
	if st.Choice == NoChoice {
		return strconv.Itoa(st.Thread)
	}
	return strconv.Itoa(st.Thread) + ":" + strconv.Itoa(st.Choice)
}

// Parse reads the text form. Blanks around steps are ignored, as is a leading
// "Path =" so that a line copied from stdbg's output parses. The empty string
// is the empty schedule.
func Parse(text string) (Schedule, error) {
	text = strings.TrimSpace(text)
	if rest, ok := strings.CutPrefix(text, "Path"); ok {
		rest = strings.TrimSpace(rest)
		if r, ok := strings.CutPrefix(rest, "="); ok {
			text = strings.TrimSpace(r)
		}
	}
	if text == "" {
		return Schedule{}, nil
	}
	parts := strings.Split(text, ";")
	s := make(Schedule, 0, len(parts))
	for i, p := range parts {
		p = strings.TrimSpace(p)
		st, err := parseStep(p)
		if err != nil {
			return nil, fmt.Errorf("schedule step %d %q: %w", i+1, p, err)
		}
		s = append(s, st)
	}
	return s, nil
}

func parseStep(p string) (Step, error) {
	if p == "" {
		return Step{}, fmt.Errorf("empty step")
	}
	tid, choice, hasChoice := strings.Cut(p, ":")
	t, err := strconv.Atoi(tid)
	if err != nil || t < 1 {
		return Step{}, fmt.Errorf("thread id must be a positive integer")
	}
	st := Step{Thread: t, Choice: NoChoice}
	if hasChoice {
		c, err := strconv.Atoi(choice)
		if err != nil || c < 0 {
			return Step{}, fmt.Errorf("choice must be a non-negative integer")
		}
		st.Choice = c
	}
	return st, nil
}

// Preemptions counts the context switches away from a thread that could
// have continued: step i+1 runs another thread although the thread of step
// i was still enabled. enabled(i, tid) reports whether thread tid was enabled
// at the scheduling point before step i (0-based).
func (s Schedule) Preemptions(enabled func(i, tid int) bool) int {
	n := 0
	for i := 1; i < len(s); i++ {
		if s[i].Thread != s[i-1].Thread && enabled(i, s[i-1].Thread) {
			n++
		}
	}
	return n
}

// Equal reports whether two schedules are the same step for step.
func (s Schedule) Equal(o Schedule) bool {
	if len(s) != len(o) {
		return false
	}
	for i := range s {
		if s[i] != o[i] {
			return false
		}
	}
	return true
}
