package grade

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/stdbg/stdbg/report"
)

// This file recognises the mistakes students make from a failure's report
// and the student's source: generic patterns, not answers per exercise.

// Hint names a recognised mistake.
type Hint struct {
	// Pattern identifies the mistake (see the Pattern constants).
	Pattern string `json:"pattern"`
	// Text says it and how to fix it.
	Text string `json:"text"`
	// Line is the line of the student's file it points at ("file:line"),
	// when one is known.
	Line string `json:"line,omitempty"`
}

// Patterns of mistakes.
const (
	PatternWaitUnderIf   = "wait-under-if"
	PatternSignalOne     = "signal-not-broadcast"
	PatternLostWakeup    = "lost-wakeup"
	PatternLockOrder     = "lock-order"
	PatternAddInside     = "waitgroup-add-in-goroutine"
	PatternUnlockMissing = "unlock-missing"
	PatternNeverClosed   = "channel-never-closed"
	PatternNoCancel      = "send-without-cancel"
	PatternUnprotected   = "unprotected-access"
	PatternNoSignal      = "missing-signal"
	PatternWaitNoLock    = "wait-without-lock"
	PatternWaitInWorker  = "wait-in-counted-goroutine"
	PatternDoneMissing   = "done-missing"
	PatternUnlockTwice   = "unlock-not-held"
	PatternCancelOpen    = "cancel-channel-not-closed"
)

// sources reads the student's files of a build, by base name.
func (g *grader) sources(b *built) map[string][]string {
	out := map[string][]string{}
	for _, f := range g.a.Submit {
		data, err := os.ReadFile(filepath.Join(b.dir, f))
		if err != nil {
			continue
		}
		out[f] = strings.Split(string(data), "\n")
	}
	return out
}

// src is the student's source, to look at lines around a report's.
type src map[string][]string

// line returns the text of file:n, "" if it is not the student's.
func (s src) line(file string, n int) string {
	lines := s[filepath.Base(file)]
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[n-1])
}

func (s src) mine(file string) bool {
	_, ok := s[filepath.Base(file)]
	return ok
}

func at(l report.Location) string {
	return fmt.Sprintf("%s:%d", filepath.Base(l.File), l.Line)
}

var (
	ifStart    = regexp.MustCompile(`^(\}\s*else\s+)?if\b`)
	loopStart  = regexp.MustCompile(`^(while|for|do)\b`)
	heldBy     = regexp.MustCompile(`held by (?:thread|goroutine)s? (\d+)`)
	returnStmt = regexp.MustCompile(`\breturn\b`)
)

// recognise finds the hints that fit a failure.
func recognise(r *report.Report, files map[string][]string) []Hint {
	s := src(files)
	var hints []Hint
	add := func(h *Hint) {
		if h != nil {
			hints = append(hints, *h)
		}
	}
	add(waitUnderIf(r, s))
	add(waitNoLock(r))
	add(unlockTooMany(r))
	add(lockOrder(r))
	add(unlockMissing(r, s))
	add(signalOne(r, s))
	add(addInside(r, s))
	add(neverClosed(r))
	add(cancelNotClosed(r))
	if len(hints) == 0 {
		add(wgStuck(r))
	}
	add(noCancel(r))
	add(unprotected(r, s))
	return hints
}

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
		// The guard: the wait's own line, or the closest line above
		// that is not blank or a brace.
		for n := st.Where.Line; n >= st.Where.Line-2 && n > 0; n-- {
			t := s.line(st.Where.File, n)
			if n < st.Where.Line && (t == "" || t == "{") {
				continue
			}
			if loopStart.MatchString(t) {
				break
			}
			if ifStart.MatchString(t) {
				return &Hint{Pattern: PatternWaitUnderIf, Line: fmt.Sprintf("%s:%d", filepath.Base(st.Where.File), n),
					Text: fmt.Sprintf("The condition wait at %s is guarded by `if`: a thread that wakes up must check the condition again, "+
						"since another thread may have got there first, and a wake-up may come without a signal at all. "+
						"Wait in a loop: while (!condition) wait(...).", at(st.Where))}
			}
			if n < st.Where.Line {
				break
			}
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

// lockOrder: a deadlock in which threads each hold a lock the next one
// waits for, round a cycle.
func lockOrder(r *report.Report) *Hint {
	if r.Kind != "deadlock" {
		return nil
	}
	waitsFor := map[int]report.Wait{}
	for _, w := range r.Waits {
		if !strings.Contains(strings.ToLower(w.Text), "lock") || len(w.Holders) != 1 {
			continue
		}
		waitsFor[w.Thread] = w
	}
	ids := make([]int, 0, len(waitsFor))
	for t := range waitsFor {
		ids = append(ids, t)
	}
	sort.Ints(ids)
	for _, t := range ids {
		cycle := []int{t}
		for cur := waitsFor[t].Holders[0]; ; cur = waitsFor[cur].Holders[0] {
			if cur == t {
				break
			}
			if _, ok := waitsFor[cur]; !ok || len(cycle) > len(waitsFor) {
				cycle = nil
				break
			}
			cycle = append(cycle, cur)
		}
		if len(cycle) < 2 {
			continue
		}
		var parts []string
		for i, c := range cycle {
			next := cycle[(i+1)%len(cycle)]
			parts = append(parts, fmt.Sprintf("thread %d waits at %s for a lock thread %d holds", c, at(waitsFor[c].Where), next))
		}
		return &Hint{Pattern: PatternLockOrder, Line: at(waitsFor[t].Where),
			Text: "Each thread holds a lock and waits for the next one's: " + strings.Join(parts, "; ") +
				". The threads take the same locks in different orders. Take locks in one fixed order everywhere " +
				"(for example, the lower-numbered one first)."}
	}
	return nil
}

// unlockMissing: a thread waits for a lock whose holder has finished, or
// that it holds itself: a path took the lock and never released it.
func unlockMissing(r *report.Report, s src) *Hint {
	for _, w := range r.Waits {
		m := heldBy.FindStringSubmatch(w.Text)
		if m == nil {
			continue
		}
		holder, _ := strconv.Atoi(m[1])
		if !strings.Contains(w.Text, "finished") && holder != w.Thread {
			continue
		}
		h := &Hint{Pattern: PatternUnlockMissing, Line: at(w.Where),
			Text: fmt.Sprintf("The lock awaited at %s is still held by thread %d, which %s: some path through the code takes the lock "+
				"and never releases it.", at(w.Where), holder, map[bool]string{true: "is the waiting thread itself", false: "has finished"}[holder == w.Thread])}
		// Where the holder took it last, and a return before its unlock.
		for i := len(r.Steps) - 1; i >= 0; i-- {
			st := r.Steps[i]
			c := parseCall(st.Call)
			if st.Thread != holder || !strings.HasSuffix(strings.ToLower(c.fn), "lock") || strings.Contains(strings.ToLower(c.fn), "unlock") ||
				!s.mine(st.Where.File) {
				continue
			}
			if n := returnBeforeUnlock(s, st.Where.File, st.Where.Line); n > 0 {
				h.Line = fmt.Sprintf("%s:%d", filepath.Base(st.Where.File), n)
				h.Text += fmt.Sprintf(" The lock is taken at %s and the function returns at line %d before unlocking it: "+
					"release the lock on every path (an early return, an error case).", at(st.Where), n)
			}
			break
		}
		return h
	}
	return nil
}

// returnBeforeUnlock finds a return after the lock at line from and
// before the next unlock, in the same function (0: none).
func returnBeforeUnlock(s src, file string, from int) int {
	lines := s[filepath.Base(file)]
	for n := from + 1; n <= len(lines) && n < from+40; n++ {
		t := strings.TrimSpace(lines[n-1])
		if strings.Contains(t, "nlock") || t == "}" && n > from+1 && !strings.HasPrefix(lines[n-1], "\t\t") {
			return 0
		}
		if returnStmt.MatchString(t) {
			return n
		}
	}
	return 0
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

// unlockTooMany: an unlock of a mutex that is not locked, or that
// another thread holds (misuse).
func unlockTooMany(r *report.Report) *Hint {
	if r.Kind != "misuse" || !strings.Contains(r.Message, "unlock") || len(r.Steps) == 0 {
		return nil
	}
	last := r.Steps[len(r.Steps)-1]
	return &Hint{Pattern: PatternUnlockTwice, Line: at(last.Where),
		Text: fmt.Sprintf("The unlock at %s releases a lock this thread does not hold: an unlock too many (the same lock twice, "+
			"or one lock where another was meant). Every unlock must match a lock the same thread took.", at(last.Where))}
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

// guarded reports a wait of the student's under a while, for or if on its
// line or the one above.
func guarded(s src, l report.Location) bool {
	for n := l.Line; n >= l.Line-1 && n > 0; n-- {
		t := s.line(l.File, n)
		if loopStart.MatchString(t) || ifStart.MatchString(t) {
			return true
		}
	}
	return !s.mine(l.File)
}

// addInside: WaitGroup.Add called by a goroutine other than the one that
// waits: Wait may run before it and return at once.
func addInside(r *report.Report, s src) *Hint {
	waiter := 0
	for _, st := range r.Steps {
		if strings.HasPrefix(st.Call, "WaitGroup.Wait") {
			waiter = st.Thread
		}
	}
	for _, st := range r.Steps {
		if strings.HasPrefix(st.Call, "WaitGroup.Add") && waiter != 0 && st.Thread != waiter {
			return &Hint{Pattern: PatternAddInside, Line: at(st.Where),
				Text: fmt.Sprintf("wg.Add is called at %s by the goroutine it counts, so Wait can run before it and return while that "+
					"goroutine still works. Call wg.Add in the goroutine that starts the others, before the go statement.", at(st.Where))}
		}
	}
	if r.Kind == "data-race" || r.Kind == "assertion" || r.Kind == "crash" {
		// The wait returned before the goroutine counted itself, and the
		// report stops at the bug: look for the Add in the source.
		for file, lines := range s {
			inGo := 0
			for i, t := range lines {
				t = strings.TrimSpace(t)
				if strings.HasPrefix(t, "go func") {
					inGo = i + 1
				}
				if inGo > 0 && i+1-inGo < 4 && strings.Contains(t, ".Add(") && !strings.Contains(t, "atomic") {
					return &Hint{Pattern: PatternAddInside, Line: fmt.Sprintf("%s:%d", file, i+1),
						Text: fmt.Sprintf("wg.Add is called at %s:%d inside the goroutine it counts, so Wait can run before it and return "+
							"while that goroutine still works. Call wg.Add before the go statement.", file, i+1)}
				}
			}
		}
	}
	return nil
}

var chanRecvWait = regexp.MustCompile(`^waits in (?:range )?Chan\.(?:Recv2?|All) for (\S+)`)

// neverClosed: a goroutine waits for ever to receive from a channel that
// no step closed (a range over it, typically).
func neverClosed(r *report.Report) *Hint {
	if r.Kind != "deadlock" && r.Kind != "leak" {
		return nil
	}
	closed := map[string]bool{}
	for _, st := range r.Steps {
		if c := parseCall(st.Call); c.fn == "Chan.Close" {
			closed[c.arg(0)] = true
		}
	}
	for _, w := range r.Waits {
		m := chanRecvWait.FindStringSubmatch(w.Text)
		if m == nil || closed[m[1]] {
			continue
		}
		ch := m[1]
		return &Hint{Pattern: PatternNeverClosed, Line: at(w.Where),
			Text: fmt.Sprintf("Goroutine %d waits for ever at %s to receive from %s, and nobody closes %s. The sender should close the "+
				"channel when it has sent everything (close(%s), or defer close(%s) in the sending goroutine), so that receivers "+
				"(a range loop) end.", w.Thread, at(w.Where), ch, ch, ch, ch)}
	}
	return nil
}

var selectWait = regexp.MustCompile(`^waits in Select on (.*) \(no case is ready\)`)

// cancelNotClosed: a goroutine waits for ever in a select that also
// receives from a channel nobody closed: a cancellation that never came
// (or came as one send, which wakes one goroutine only).
func cancelNotClosed(r *report.Report) *Hint {
	if r.Kind != "leak" && r.Kind != "deadlock" {
		return nil
	}
	closed := map[string]bool{}
	for _, st := range r.Steps {
		if c := parseCall(st.Call); c.fn == "Chan.Close" {
			closed[c.arg(0)] = true
		}
	}
	for _, w := range r.Waits {
		m := selectWait.FindStringSubmatch(w.Text)
		if m == nil {
			continue
		}
		for _, cs := range strings.Split(m[1], ", ") {
			ch, ok := strings.CutPrefix(cs, "<-")
			if !ok || closed[ch] {
				continue
			}
			return &Hint{Pattern: PatternCancelOpen, Line: at(w.Where),
				Text: fmt.Sprintf("Goroutine %d waits for ever in a select at %s that also receives from %s, and nobody closes %s. "+
					"To stop goroutines, close the channel they watch (close(done)): a receive from a closed channel proceeds at once, "+
					"in every goroutine, while a send on it wakes one goroutine only.", w.Thread, at(w.Where), ch, ch)}
		}
	}
	return nil
}

var wgWait = regexp.MustCompile(`^waits in WaitGroup\.Wait for (\S+) \(counter (\d+)\)`)

// wgStuck: a WaitGroup's Wait waits for ever: a counted goroutine waits
// on the group itself, or one did not call Done on its way out.
func wgStuck(r *report.Report) *Hint {
	if r.Kind != "deadlock" && r.Kind != "leak" {
		return nil
	}
	var waiters []report.Wait
	for _, w := range r.Waits {
		if wgWait.MatchString(w.Text) {
			waiters = append(waiters, w)
		}
	}
	if len(waiters) == 0 {
		return nil
	}
	m := wgWait.FindStringSubmatch(waiters[0].Text)
	wg := m[1]
	if len(waiters) > 1 {
		for _, w := range waiters {
			if w.Started != nil {
				return &Hint{Pattern: PatternWaitInWorker, Line: at(w.Where),
					Text: fmt.Sprintf("Goroutine %d, which %s counts, waits on %s itself at %s: the counter cannot reach zero while "+
						"the goroutines it counts wait for it. Only the goroutine that collects the results should Wait.", w.Thread, wg, wg, at(w.Where))}
			}
		}
	}
	return &Hint{Pattern: PatternDoneMissing, Line: at(waiters[0].Where),
		Text: fmt.Sprintf("The Wait at %s waits for ever: %s's counter is still %s, although the goroutines it counts are gone "+
			"or elsewhere. Every goroutine counted by Add must call Done on every path: start it with defer %s.Done().",
			at(waiters[0].Where), wg, m[2], wg)}
}

// noCancel: a goroutine is stuck sending on a channel nobody receives
// from any more (the receiver gave up): its send must also watch for
// cancellation.
func noCancel(r *report.Report) *Hint {
	if r.Kind != "leak" && r.Kind != "deadlock" {
		return nil
	}
	for _, w := range r.Waits {
		if !strings.HasPrefix(w.Text, "waits in Chan.Send") {
			continue
		}
		return &Hint{Pattern: PatternNoCancel, Line: at(w.Where),
			Text: fmt.Sprintf("Goroutine %d is stuck for ever sending at %s: the receiver no longer receives. A send that may outlive its "+
				"receiver must also watch for cancellation: select { case out <- v: case <-done: return }.", w.Thread, at(w.Where))}
	}
	return nil
}

// unprotected: a data race on a variable at a line of the student's that
// no lock protects.
func unprotected(r *report.Report, s src) *Hint {
	if r.Kind != "data-race" {
		return nil
	}
	where := report.Location{}
	if r.Failure != nil {
		where = r.Failure.Where
	}
	if !s.mine(where.File) {
		for _, st := range r.Steps {
			if s.mine(st.Where.File) {
				where = st.Where
			}
		}
	}
	if !s.mine(where.File) {
		return nil
	}
	return &Hint{Pattern: PatternUnprotected, Line: at(where),
		Text: fmt.Sprintf("%s is reached by two threads at once with nothing ordering them. Protect every access to the shared "+
			"variable, reads included, with the same lock (or use an atomic operation).", at(where))}
}
