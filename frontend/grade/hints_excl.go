package grade

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stdbg/stdbg/internal/lazyre"

	"github.com/stdbg/stdbg/engine/report"
)

// The hints about mutual exclusion that does not hold: two threads in the
// protected part with no lock in common (or none held at all), a decision
// taken on shared state before taking the lock, an update split over two
// critical sections, and a thread that goes through a wait whose state
// was left over from before.

// held returns the locks thread th holds after steps, in the order taken.
func held(steps []report.Step, th int) []string {
	var out []string
	drop := func(m string) {
		if i := slices.Index(out, m); i >= 0 {
			out = slices.Delete(out, i, i+1)
		}
	}
	for _, st := range steps {
		if st.Thread != th {
			continue
		}
		c := parseCall(st.Call)
		switch k, obj := classify(st.Call); k {
		case opLock, opTryTaken:
			out = append(out, obj)
		case opUnlock:
			drop(obj)
		case opCondWait:
			if strings.Contains(c.rest, "releases") {
				drop(c.arg(1))
			} else if strings.Contains(c.rest, "wakes up") || strings.Contains(c.rest, "spurious") || strings.Contains(c.rest, "returns") {
				out = append(out, c.arg(1))
			}
		}
	}
	return out
}

// calledBack reports whether the failing thread failed in code the
// student's code called (the protected work of a harness, such as a meal):
// a frame of the student's files below the failing one.
func calledBack(r *report.Report, s src) (report.Frame, bool) {
	for _, f := range r.Stack {
		if f.User && f.File != "" && s.mine(f.File) {
			return f, f.File != r.Failure.Where.File || f.Line != r.Failure.Where.Line
		}
	}
	return report.Frame{}, false
}

// blocked is the set of threads a report shows waiting.
func blocked(r *report.Report) map[int]bool {
	out := map[int]bool{}
	for _, w := range r.Waits {
		out[w.Thread] = true
	}
	return out
}

// finished reports whether thread th's last step ended it.
func finished(r *report.Report, th int) bool {
	for i := len(r.Steps) - 1; i >= 0; i-- {
		if r.Steps[i].Thread == th {
			return phrase(r.Steps[i].Call, false) == "finishes"
		}
	}
	return false
}

// noCommonLock: a check fails in the work the student's code protects (a
// harness function it calls with its locks held), and the locks do not
// keep the threads apart: the failing thread holds none there (it
// released them before, or took none), or another thread that is in its
// own protected part at the same time holds only other locks.
func noCommonLock(r *report.Report, s src) *Hint {
	if r.Kind != "assertion" || r.Failure == nil {
		return nil
	}
	caller, ok := calledBack(r, s)
	if !ok {
		return nil
	}
	f := r.Failure.Thread
	mine := held(r.Steps, f)
	where := fmt.Sprintf("%s (called from %s:%d)", at(r.Failure.Where), filepath.Base(caller.File), caller.Line)
	if len(mine) == 0 {
		var released []string
		for _, st := range r.Steps {
			if k, obj := classify(st.Call); st.Thread == f && k == opUnlock && s.mine(st.Where.File) {
				released = append(released, fmt.Sprintf("%s at %s", obj, at(st.Where)))
			}
		}
		text := fmt.Sprintf("Thread %d fails at %s holding no lock at all", f, where)
		if len(released) > 0 {
			text += ": it released " + strings.Join(released, " and ") + " before it got there"
		}
		return &Hint{Pattern: PatternNoCommonLock, Line: fmt.Sprintf("%s:%d", filepath.Base(caller.File), caller.Line),
			Text: text + ". A lock protects only what is done while it is held: hold the locks until the work they protect is done."}
	}
	out := blocked(r)
	for th := 1; th <= maxThread(r); th++ {
		if th == f || out[th] || finished(r, th) {
			continue
		}
		other := held(r.Steps, th)
		if len(other) == 0 || slices.ContainsFunc(other, func(m string) bool { return slices.Contains(mine, m) }) {
			continue
		}
		return &Hint{Pattern: PatternNoCommonLock, Line: fmt.Sprintf("%s:%d", filepath.Base(caller.File), caller.Line),
			Text: fmt.Sprintf("Thread %d fails at %s holding %s, while thread %d, also at work, holds %s: they hold no lock in "+
				"common, so nothing keeps them apart. Two threads that must not work at once must both hold a lock they share "+
				"(for the dining philosophers: both forks, each shared with a neighbour).", f, where, strings.Join(mine, " and "),
				th, strings.Join(other, " and "))}
	}
	return nil
}

// maxThread is the highest thread number a report names.
func maxThread(r *report.Report) int {
	n := 0
	for _, st := range r.Steps {
		n = max(n, st.Thread)
	}
	for _, w := range r.Waits {
		n = max(n, w.Thread)
	}
	return n
}

var fieldAccess = lazyre.New(`\w(->|\.)\w`)

// checkOutsideLock: the failing thread took a lock in a branch of an if
// that tested shared state (a field) before the lock was held: by the time
// it had the lock, the state had changed.
func checkOutsideLock(r *report.Report, s src) *Hint {
	if r.Failure == nil || (r.Kind != "assertion" && r.Kind != "crash") {
		return nil
	}
	f := r.Failure.Thread
	for i := len(r.Steps) - 1; i >= 0; i-- {
		st := r.Steps[i]
		if st.Thread != f {
			continue
		}
		k, obj := classify(st.Call)
		if k != opLock || !s.mine(st.Where.File) {
			continue
		}
		if len(held(r.Steps[:i], f)) > 0 {
			return nil
		}
		cond, n := s.branchTest(st.Where)
		if cond == "" || !fieldAccess.MatchString(cond) {
			return nil
		}
		return &Hint{Pattern: PatternCheckOutside, Line: fmt.Sprintf("%s:%d", filepath.Base(st.Where.File), n),
			Text: fmt.Sprintf("Thread %d decides at %s:%d (%s) before it takes %s at %s: by the time it has the lock, another "+
				"thread may have changed what it tested. Test shared state only with its lock held: take the lock first, then "+
				"look.", f, filepath.Base(st.Where.File), n, cond, obj, at(st.Where))}
	}
	return nil
}

// branchTest returns the condition of the if whose branch (then or else)
// holds the line at l, and its line; "" when l is in no such branch.
func (s src) branchTest(l report.Location) (string, int) {
	g, n := s.guard(l)
	if strings.HasPrefix(g, "} else") || strings.HasPrefix(g, "else") {
		lines := s[filepath.Base(l.File)]
		depth := indent(lines[n-1])
		for m := n - 1; m >= 1; m-- {
			t := strings.TrimSpace(lines[m-1])
			if indent(lines[m-1]) == depth && ifStart.MatchString(t) {
				return t, m
			}
		}
		return "", 0
	}
	if ifStart.MatchString(g) {
		return g, n
	}
	return "", 0
}

// splitSection: a thread releases a lock and takes it again at another
// line to go on with the same update, and another thread took the lock in
// between: what the first does next is based on what it saw before (a
// lost update), and a check fails. Or a thread releases one lock and goes
// on to take another for the rest of its change, and the failing thread
// took the first in between: it saw the change half done.
func splitSection(r *report.Report, s src) *Hint {
	if r.Kind != "assertion" && r.Kind != "crash" {
		return nil
	}
	if h := halfDone(r, s); h != nil {
		return h
	}
	lastOwn := map[int]int{} // thread -> index of its previous step
	for i, st := range r.Steps {
		prev, ok := lastOwn[st.Thread]
		lastOwn[st.Thread] = i
		if !ok || !s.mine(st.Where.File) {
			continue
		}
		k, m := classify(st.Call)
		pk, pm := classify(r.Steps[prev].Call)
		if k != opLock || pk != opUnlock || pm != m || r.Steps[prev].Where.Line == st.Where.Line {
			continue
		}
		for _, between := range r.Steps[prev+1 : i] {
			if bk, bm := classify(between.Call); between.Thread != st.Thread && bk == opLock && bm == m {
				return &Hint{Pattern: PatternSplitSection, Line: at(st.Where),
					Text: fmt.Sprintf("Thread %d releases %s at %s and takes it again at %s to go on with the same update; in "+
						"between, thread %d took %s (at %s) and changed the state, so what thread %d does next rests on what it "+
						"saw before (a lost update). Do the whole update, the read and the write, in one critical section.",
						st.Thread, m, at(r.Steps[prev].Where), at(st.Where), between.Thread, m, at(between.Where), st.Thread)}
			}
		}
	}
	return nil
}

// passedWithoutWaiting: a check fails in a thread that went through a
// wait (took the lock and let it go without waiting) while threads woken
// by a broadcast on its condition had not yet got the lock back: the state
// that let it through was left over from before (a barrier's count from
// the previous round).
func passedWithoutWaiting(r *report.Report) *Hint {
	if r.Kind != "assertion" || r.Failure == nil {
		return nil
	}
	f := r.Failure.Thread
	// The failing thread's last pass: a lock and its unlock, no wait.
	lock, unlock := -1, -1
	for i := len(r.Steps) - 1; i >= 0; i-- {
		st := r.Steps[i]
		if st.Thread != f {
			continue
		}
		k, _ := classify(st.Call)
		if k == opCondWait {
			return nil
		}
		if k == opUnlock && unlock < 0 {
			unlock = i
		}
		if k == opLock && unlock >= 0 {
			lock = i
			break
		}
	}
	if lock < 0 {
		return nil
	}
	_, m := classify(r.Steps[lock].Call)
	// Threads waiting on a condition of that mutex, woken by a broadcast
	// made after their wait, and not back yet.
	lastWait := map[int]int{}
	for i, st := range r.Steps {
		if k, _ := classify(st.Call); k == opCondWait && st.Thread != f {
			lastWait[st.Thread] = i
		}
	}
	var woken []string
	bcast := -1
	for th, i := range lastWait {
		c := parseCall(r.Steps[i].Call)
		if !strings.Contains(c.rest, "releases") || c.arg(1) != m {
			continue
		}
		for j := i + 1; j < lock; j++ {
			bc := parseCall(r.Steps[j].Call)
			if l := strings.ToLower(bc.fn); strings.HasSuffix(l, "broadcast") && bc.arg(0) == c.arg(0) {
				woken = append(woken, fmt.Sprint(th))
				if bcast < 0 || j < bcast {
					bcast = j
				}
				break
			}
		}
	}
	if len(woken) == 0 {
		return nil
	}
	slices.Sort(woken)
	who := "thread " + woken[0]
	if len(woken) > 1 {
		who = "threads " + strings.Join(woken, ", ")
	}
	return &Hint{Pattern: PatternPassedWithout, Line: at(r.Steps[lock].Where),
		Text: fmt.Sprintf("Thread %d went through at %s without waiting, while %s, woken by the broadcast at %s, had not yet "+
			"got %s back: the state that let thread %d through was left over from before (for a barrier, the count of the round "+
			"that is ending). Wait for something that later steps cannot leave behind, such as a round number that only grows: "+
			"remember it when you arrive, and wait while it is unchanged.", f, at(r.Steps[lock].Where), who,
			at(r.Steps[bcast].Where), m, f)}
}

// halfDone: the failing thread took a lock that another thread had just
// released, in the middle of a change that the other goes on with under
// another lock (taken next, in the same function): it saw the change half
// made.
func halfDone(r *report.Report, s src) *Hint {
	if r.Failure == nil {
		return nil
	}
	f := r.Failure.Thread
	for i, st := range r.Steps {
		k, x := classify(st.Call)
		if st.Thread == f || k != opUnlock || !s.mine(st.Where.File) {
			continue
		}
		end := len(r.Steps)
		var next *report.Step
		for j := i + 1; j < len(r.Steps); j++ {
			if r.Steps[j].Thread == st.Thread {
				end, next = j, &r.Steps[j]
				break
			}
		}
		if next != nil {
			if nk, y := classify(next.Call); nk != opLock || y == x || next.Where.Func != st.Where.Func {
				continue
			}
		} else if finished(r, st.Thread) {
			continue
		}
		for _, seen := range r.Steps[i+1 : end] {
			if sk, sx := classify(seen.Call); seen.Thread == f && sk == opLock && sx == x {
				then := "before it takes another lock for the rest of its change"
				if next != nil {
					then = fmt.Sprintf("before it takes %s (at %s) for the rest of its change", func() string { _, y := classify(next.Call); return y }(), at(next.Where))
				}
				return &Hint{Pattern: PatternSplitSection, Line: at(st.Where),
					Text: fmt.Sprintf("Thread %d releases %s at %s %s; in between, thread %d took %s (at %s) and saw the change half "+
						"made. A change that must look whole to the others (money leaving one account and arriving in another) "+
						"must be made while holding every lock it needs, all at once.", st.Thread, x, at(st.Where), then, f, x,
						at(seen.Where))}
			}
		}
	}
	return nil
}
