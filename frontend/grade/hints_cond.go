package grade

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/stdbg/stdbg/engine/report"
)

// The hints about condition variables: waits under if or unguarded,
// waits without the mutex, signals that wake the wrong thread, come too
// early or come without the mutex, wake-ups whose condition was undone,
// and waiters starved by a cycle of others.
// isCondWait reports a step that waits on a condition variable.
func isCondWait(call string) bool {
	c := parseCall(call)
	l := strings.ToLower(c.fn)
	return (strings.Contains(l, "cond_wait") || strings.Contains(l, "cond_timedwait") || c.fn == "Cond.Wait" || c.fn == "cnd_wait") &&
		!strings.Contains(c.rest, "wakes up") && !strings.Contains(c.rest, "is signalled")
}

// waitUnderIf: a condition wait of the student's guarded by if, in a
// failure that is not a deadlock (the wait returned, and the condition did
// not hold).
func waitUnderIf(r *report.Report, s src) *Hint {
	if r.Kind == "deadlock" || r.Kind == "leak" {
		return nil
	}
	for _, st := range r.Steps {
		if !isCondWait(st.Call) || !s.mine(st.Where.File) {
			continue
		}
		g, n := s.guard(st.Where)
		if ifStart.MatchString(g) {
			return &Hint{Pattern: PatternWaitUnderIf, Line: fmt.Sprintf("%s:%d", filepath.Base(st.Where.File), n),
				Text: fmt.Sprintf("The condition wait at %s is guarded by `if`: a thread that wakes up must check the condition again, "+
					"since another thread may have got there first, and a wake-up may come without a signal at all. "+
					"Wait in a loop: while (!condition) wait(...).", at(st.Where))}
		}
		if !guarded(s, st.Where) {
			return &Hint{Pattern: PatternLostWakeup, Line: at(st.Where),
				Text: fmt.Sprintf("The condition wait at %s is not guarded by any condition: a thread must wait only while the state "+
					"says it cannot go on, and check again when it wakes up (wake-ups can come without a signal, and a signal sent "+
					"before the wait is lost). Wait in a loop: while (!condition) wait(...).", at(st.Where))}
		}
	}
	return nil
}

// guard returns the statement that controls the line at l, and its line:
// l's own line when it starts with if, while, for or do (a one-line
// guarded wait), else the closest line above it that is less indented
// (the header of the enclosing block; a brace alone on its line stands
// for the line above it). "" when the file is not the student's.
func (s src) guard(l report.Location) (string, int) {
	lines := s[filepath.Base(l.File)]
	if l.Line < 1 || l.Line > len(lines) {
		return "", 0
	}
	own := strings.TrimSpace(lines[l.Line-1])
	if ifStart.MatchString(own) || loopStart.MatchString(own) {
		return own, l.Line
	}
	depth := indent(lines[l.Line-1])
	for n := l.Line - 1; n >= 1; n-- {
		raw := lines[n-1]
		t := strings.TrimSpace(raw)
		if t == "" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*") {
			continue
		}
		if indent(raw) >= depth {
			continue
		}
		if t == "{" {
			// The header is the line above the brace.
			for m := n - 1; m >= 1; m-- {
				if h := strings.TrimSpace(lines[m-1]); h != "" {
					return h, m
				}
			}
			return "", 0
		}
		return t, n
	}
	return "", 0
}

// indent is the width of a line's leading white space (a tab counts 8).
func indent(line string) int {
	w := 0
	for _, c := range line {
		switch c {
		case ' ':
			w++
		case '\t':
			w += 8
		default:
			return w
		}
	}
	return w
}

// waitNoLock: a condition wait without holding its mutex (misuse).
func waitNoLock(r *report.Report) *Hint {
	if r.Kind != "misuse" || !strings.Contains(r.Message, "without holding its mutex") {
		return nil
	}
	h := &Hint{Pattern: PatternWaitNoLock, Text: "A condition wait must be called with its mutex held: the wait releases the mutex " +
		"and takes it back atomically. Do not unlock before waiting; lock, then loop on the condition around the wait."}
	if r.Failure != nil {
		h.Line = at(r.Failure.Where)
	} else if n := len(r.Steps); n > 0 {
		h.Line = at(r.Steps[n-1].Where)
	}
	return h
}

// signalOne: a thread waits for ever on a condition that was signalled
// while it waited, the signal having woken another thread; or it started
// waiting after the only signal (a lost wake-up).
func signalOne(r *report.Report, s src) *Hint {
	if r.Kind != "deadlock" && r.Kind != "leak" {
		return nil
	}
	for _, w := range r.Waits {
		if !strings.Contains(w.Text, "never signalled") && !strings.Contains(w.Text, "not signalled") {
			continue
		}
		// The condition it waits on: its last wait step.
		var cond string
		waitedAt := -1
		for i, st := range r.Steps {
			if st.Thread == w.Thread && isCondWait(st.Call) {
				cond, waitedAt = parseCall(st.Call).arg(0), i
			}
		}
		if cond == "" {
			continue
		}
		if h := signalUnlocked(r, w, cond, parseCall(r.Steps[waitedAt].Call).arg(1), waitedAt); h != nil {
			return h
		}
		signalled := false
		for _, st := range r.Steps {
			c := parseCall(st.Call)
			l := strings.ToLower(c.fn)
			if (strings.HasSuffix(l, "signal") || strings.HasSuffix(l, "broadcast")) && c.arg(0) == cond {
				signalled = true
			}
		}
		if !signalled {
			return &Hint{Pattern: PatternNoSignal, Line: at(w.Where),
				Text: fmt.Sprintf("Thread %d waits for ever on %s at %s, and no thread ever signals %s. Whenever a thread changes "+
					"the state so that a waiter on %s could go on, it must signal (or broadcast) %s.", w.Thread, cond, at(w.Where), cond, cond, cond)}
		}
		for i, st := range r.Steps {
			c := parseCall(st.Call)
			l := strings.ToLower(c.fn)
			if !(strings.HasSuffix(l, "signal")) || c.arg(0) != cond {
				continue
			}
			if i > waitedAt {
				return &Hint{Pattern: PatternSignalOne, Line: at(st.Where),
					Text: fmt.Sprintf("Thread %d waits for ever on %s although %s was signalled at %s while it waited: a signal wakes one "+
						"waiting thread, not necessarily the one that can go on. Use broadcast (and re-check the condition in a loop), "+
						"or one condition variable per kind of waiter.", w.Thread, cond, cond, at(st.Where))}
			}
		}
		if guarded(s, w.Where) {
			continue
		}
		for _, st := range r.Steps[:waitedAt] {
			c := parseCall(st.Call)
			if strings.HasSuffix(strings.ToLower(c.fn), "signal") || strings.HasSuffix(strings.ToLower(c.fn), "broadcast") {
				if c.arg(0) == cond {
					return &Hint{Pattern: PatternLostWakeup, Line: at(w.Where),
						Text: fmt.Sprintf("Thread %d waits on %s at %s after the signal was already sent (at %s): a signal is not remembered. "+
							"Wait only while a condition, kept under the lock, says there is something to wait for: while (!ready) wait(...).",
							w.Thread, cond, at(w.Where), at(st.Where))}
				}
			}
		}
	}
	return nil
}

// staleWake: a thread waits for ever after a broadcast woke it: before
// it got the mutex back, another thread took the mutex and made the
// condition it re-checks false again (a barrier that waits for its count
// to come back to zero, which the next round's first arrival undoes).
func staleWake(r *report.Report) *Hint {
	if r.Kind != "deadlock" && r.Kind != "leak" {
		return nil
	}
	for _, w := range r.Waits {
		if !strings.Contains(w.Text, "never signalled") && !strings.Contains(w.Text, "not signalled") {
			continue
		}
		// Its last wake-up, followed by a wait on the same condition.
		woke, again := -1, -1
		var cond, m string
		for i, st := range r.Steps {
			if st.Thread != w.Thread || !strings.Contains(st.Call, "cond_wait") {
				continue
			}
			c := parseCall(st.Call)
			switch {
			case strings.Contains(c.rest, "wakes up"):
				woke, cond, m, again = i, c.arg(0), c.arg(1), -1
			case woke >= 0 && c.arg(0) == cond && strings.Contains(c.rest, "releases"):
				again = i
			}
		}
		if woke < 0 || again < 0 {
			continue
		}
		bcast := -1
		for i := woke - 1; i >= 0; i-- {
			c := parseCall(r.Steps[i].Call)
			if strings.HasSuffix(strings.ToLower(c.fn), "broadcast") && c.arg(0) == cond {
				bcast = i
				break
			}
		}
		if bcast < 0 {
			continue
		}
		for i := bcast + 1; i < woke; i++ {
			st := r.Steps[i]
			c := parseCall(st.Call)
			l := strings.ToLower(c.fn)
			if st.Thread == w.Thread || !strings.HasSuffix(l, "lock") || strings.Contains(l, "unlock") || c.arg(0) != m {
				continue
			}
			return &Hint{Pattern: PatternStaleWake, Line: at(w.Where),
				Text: fmt.Sprintf("Thread %d was woken by the broadcast on %s at %s, but before it got %s back, thread %d took %s (at %s) and "+
					"made the condition it re-checks false again, so it went back to waiting, for ever. Wait for something that later "+
					"steps cannot undo, such as a round (generation) number that only grows: remember it before waiting, and wait "+
					"while it is unchanged.", w.Thread, cond, at(r.Steps[bcast].Where), m, st.Thread, m, at(st.Where))}
		}
	}
	return nil
}

// starved: a run that goes round a cycle for ever (a livelock, or a
// violated progress property) while a thread waits on a condition
// variable the whole time: the threads of the cycle keep taking the
// waiter's mutex, and each time the state it waits for is still not there.
func starved(r *report.Report) *Hint {
	if r.Cycle == "" || r.CycleStart < 1 {
		return nil
	}
	inCycle := map[int]bool{}
	var cycleThreads []int
	for _, st := range r.Steps {
		if st.N >= r.CycleStart && !inCycle[st.Thread] {
			inCycle[st.Thread] = true
			cycleThreads = append(cycleThreads, st.Thread)
		}
	}
	last := map[int]int{} // thread -> its last step before the cycle
	for i, st := range r.Steps {
		if st.N < r.CycleStart {
			last[st.Thread] = i
		}
	}
	ids := make([]int, 0, len(last))
	for t := range last {
		ids = append(ids, t)
	}
	sort.Ints(ids)
	for _, t := range ids {
		st := r.Steps[last[t]]
		c := parseCall(st.Call)
		if inCycle[t] || !isCondWaitCall(st.Call) || !strings.Contains(c.rest, "releases") {
			continue
		}
		m := c.arg(1)
		var takers []string
		var where []string
		seen := map[string]bool{}
		for _, ct := range cycleThreads {
			for _, cs := range r.Steps {
				cc := parseCall(cs.Call)
				l := strings.ToLower(cc.fn)
				if cs.N < r.CycleStart || cs.Thread != ct || !strings.HasSuffix(l, "lock") || strings.Contains(l, "unlock") || cc.arg(0) != m {
					continue
				}
				if !seen[fmt.Sprint(ct)] {
					seen[fmt.Sprint(ct)] = true
					takers = append(takers, fmt.Sprint(ct))
				}
				if w := at(cs.Where); !seen[w] {
					seen[w] = true
					where = append(where, w)
				}
			}
		}
		if len(takers) == 0 {
			continue
		}
		who := "thread " + takers[0]
		if len(takers) > 1 {
			who = "threads " + strings.Join(takers[:len(takers)-1], ", ") + " and " + takers[len(takers)-1]
		}
		return &Hint{Pattern: PatternStarved, Line: at(st.Where),
			Text: fmt.Sprintf("Thread %d waits on %s at %s for ever, while %s go round and round, taking %s again and again (%s): "+
				"each time they pass, what thread %d waits for is still not there, because the threads that keep coming in keep it "+
				"from happening. Give the waiting thread priority: record under the lock that it is waiting (a count of waiting "+
				"threads), and make newcomers wait while that count is not zero.", t, c.arg(0), at(st.Where), who, m,
				strings.Join(where, ", "), t)}
	}
	return nil
}

// isCondWaitCall reports a step of a condition wait, whatever its phase.
func isCondWaitCall(call string) bool {
	l := strings.ToLower(parseCall(call).fn)
	return strings.Contains(l, "cond_wait") || strings.Contains(l, "cond_timedwait") || l == "cnd_wait"
}

// signalUnlocked: the waiter w waits for ever on cond (with mutex m,
// from step waitedAt), and the last signal of cond before that wait was
// sent by a thread that did not hold m: it could come between the
// waiter's check of the state and its wait, and be lost.
func signalUnlocked(r *report.Report, w report.Wait, cond, m string, waitedAt int) *Hint {
	for i := waitedAt - 1; i >= 0; i-- {
		st := r.Steps[i]
		c := parseCall(st.Call)
		l := strings.ToLower(c.fn)
		if st.Thread == w.Thread || !(strings.HasSuffix(l, "signal") || strings.HasSuffix(l, "broadcast")) || c.arg(0) != cond {
			continue
		}
		if m == "" || holding(r.Steps[:i], st.Thread, m) {
			return nil
		}
		return &Hint{Pattern: PatternSignalNoLock, Line: at(st.Where),
			Text: fmt.Sprintf("Thread %d signals %s at %s without holding %s: it changed the state and signalled while thread %d was "+
				"between its check of the state and its wait (%s), so the signal came before the wait and was lost. Change the "+
				"state the waiters check, and signal, with the mutex held.", st.Thread, cond, at(st.Where), m, w.Thread, at(w.Where))}
	}
	return nil
}

// holding reports whether thread th holds mutex m after steps.
func holding(steps []report.Step, th int, m string) bool {
	held := false
	for _, st := range steps {
		if st.Thread != th {
			continue
		}
		c := parseCall(st.Call)
		l := strings.ToLower(c.fn)
		switch {
		case isCondWait(st.Call) || strings.Contains(l, "cond_wait") || strings.Contains(l, "cond_timedwait"):
			if c.arg(1) == m {
				held = !strings.Contains(c.rest, "releases")
			}
		case strings.Contains(l, "unlock"):
			if c.arg(0) == m {
				held = false
			}
		case strings.HasSuffix(l, "lock") && c.arg(0) == m && !strings.Contains(c.rest, "EBUSY"):
			held = true
		}
	}
	return held
}

// guarded reports a wait of the student's under a while, for, do or if
// (see src.guard); a wait outside the student's files is taken as
// guarded.
func guarded(s src, l report.Location) bool {
	if !s.mine(l.File) {
		return true
	}
	g, _ := s.guard(l)
	return loopStart.MatchString(g) || ifStart.MatchString(g) || strings.HasPrefix(g, "} while")
}

// neverRestored: a thread waits for ever, in a loop, on a condition that
// was broadcast (or signalled) before it began to wait, and whose
// signallers have finished: they left the state the loop waits on as it
// was, and nobody is left to change it (a count not put back, a flag not
// reset).
func neverRestored(r *report.Report, s src) *Hint {
	if r.Kind != "deadlock" && r.Kind != "leak" {
		return nil
	}
	for _, w := range r.Waits {
		if !strings.Contains(w.Text, "never signalled") && !strings.Contains(w.Text, "not signalled") {
			continue
		}
		waitedAt := -1
		var cond string
		for i, st := range r.Steps {
			if st.Thread == w.Thread && isCondWait(st.Call) {
				cond, waitedAt = parseCall(st.Call).arg(0), i
			}
		}
		if waitedAt < 0 || !s.mine(w.Where.File) {
			continue
		}
		g, gl := s.guard(w.Where)
		if !loopStart.MatchString(g) {
			continue
		}
		for _, st := range r.Steps[:waitedAt] {
			c := parseCall(st.Call)
			l := strings.ToLower(c.fn)
			if !(strings.HasSuffix(l, "signal") || strings.HasSuffix(l, "broadcast")) || c.arg(0) != cond ||
				!finished(r, st.Thread) && !blocked(r)[st.Thread] {
				continue
			}
			return &Hint{Pattern: PatternNeverRestored, Line: fmt.Sprintf("%s:%d", filepath.Base(w.Where.File), gl),
				Text: fmt.Sprintf("Thread %d waits on %s at %s for ever, in its loop %s: thread %d announced a change on %s (at %s) and "+
					"finished, and the condition still holds: no thread is left to change it, or to wake the waiter when it "+
					"changed. Either some change the waiters wait for is never made (a count not put back, a flag not reset), "+
					"or it is made without waking them: every change that can end a wait must signal (or broadcast) its "+
					"condition variable.", w.Thread, cond, at(w.Where), strings.TrimSuffix(g, " {"), st.Thread, cond, at(st.Where))}
		}
	}
	return nil
}
