package grade

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/stdbg/stdbg/engine/report"
)

// The hints about threads that do not wait: a loop that takes a lock (or
// tries it, or yields) again and again to look (a busy-wait), a trylock
// that gives up and skips its work, and threads that back off in step
// with each other for ever (a livelock).

// opKind classifies a step's call for these hints.
type opKind int

const (
	opOther opKind = iota
	opLock
	opTryFailed
	opTryTaken
	opUnlock
	opYield
	opCondWait
)

// classify returns what a step's call does, and the object it does it to.
func classify(callText string) (opKind, string) {
	c := parseCall(callText)
	l := strings.ToLower(c.fn)
	switch {
	case isCondWaitCall(callText) || c.fn == "Cond.Wait":
		return opCondWait, c.arg(0)
	case strings.HasSuffix(l, "trylock"):
		if strings.Contains(c.rest, "EBUSY") || strings.Contains(c.rest, "false") {
			return opTryFailed, c.arg(0)
		}
		return opTryTaken, c.arg(0)
	case strings.Contains(l, "unlock"):
		return opUnlock, c.arg(0)
	case strings.HasSuffix(l, "lock") && !strings.Contains(l, "rwlock_init"):
		return opLock, c.arg(0)
	case c.fn == "sched_yield" || c.fn == "stdbg_yield" || c.fn == "sthread.Yield" || c.fn == "runtime.Gosched" || c.fn == "Gosched":
		return opYield, ""
	}
	return opOther, ""
}

// inLoop reports whether the student's line l is inside a loop: the
// header of a block around it, or the line itself, is a while, for or do.
func inLoop(s src, l report.Location) bool {
	lines := s[filepath.Base(l.File)]
	if l.Line < 1 || l.Line > len(lines) {
		return false
	}
	if loopStart.MatchString(strings.TrimSpace(lines[l.Line-1])) {
		return true
	}
	depth := indent(lines[l.Line-1])
	for n := l.Line - 1; n >= 1 && depth > 0; n-- {
		raw := lines[n-1]
		t := strings.TrimSpace(raw)
		if t == "" || t == "{" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*") || indent(raw) >= depth {
			continue
		}
		depth = indent(raw)
		if loopStart.MatchString(t) || strings.HasPrefix(t, "} while") {
			return true
		}
		if funcHeader.MatchString(raw) && depth == 0 {
			return false
		}
	}
	return false
}

// busyWait: a thread of the student's takes a lock, tries one or yields
// at the same line of a loop again, with nothing between but releasing
// it, failed tries and yields (and no condition wait): it polls instead
// of sleeping until another thread wakes it. The repetition is among its
// steps, or is the operation it was about to make when it failed (a
// harness that counts polls stops it there).
func busyWait(r *report.Report, s src) *Hint {
	polled := map[int]map[string]int{} // thread -> its polls since its last other step, by file:line
	var hit *report.Step
	for i := range r.Steps {
		st := &r.Steps[i]
		switch k, obj := classify(st.Call); k {
		case opLock, opTryFailed, opTryTaken, opYield:
			key := at(st.Where) + " " + obj
			if _, ok := polled[st.Thread][key]; ok && s.mine(st.Where.File) && inLoop(s, st.Where) {
				hit = st
			}
			if polled[st.Thread] == nil {
				polled[st.Thread] = map[string]int{}
			}
			polled[st.Thread][key] = i
		case opUnlock:
		default:
			delete(polled, st.Thread)
		}
		if hit != nil {
			break
		}
	}
	if hit == nil && r.Failure != nil {
		// The operation the failing thread was about to make again (a
		// harness that counts polls stops it there): its stack's first
		// frame in the student's files.
		for _, f := range r.Stack {
			if f.File == "" || !s.mine(f.File) {
				continue
			}
			here := fmt.Sprintf("%s:%d ", filepath.Base(f.File), f.Line)
			for key, j := range polled[r.Failure.Thread] {
				if strings.HasPrefix(key, here) && inLoop(s, r.Steps[j].Where) {
					hit = &r.Steps[j]
				}
			}
			if hit == nil {
				hit = pollingAgain(r, s, f, polled[r.Failure.Thread])
			}
			break
		}
	}
	if hit == nil {
		return nil
	}
	return &Hint{Pattern: PatternBusyWait, Line: at(hit.Where),
		Text: fmt.Sprintf("Thread %d comes back to %s (%s) again and again without waiting: it polls, taking or trying the "+
			"lock to look whether it may go on and letting go, a busy-wait. It burns the processor and, if the thread it "+
			"waits for does not run, goes on for ever. Sleep on a condition variable instead: while (!condition) "+
			"pthread_cond_wait(&cond, &lock); and make the thread that changes the state signal it.", hit.Thread, at(hit.Where),
			strings.TrimSpace(hit.Where.Source))}
}

// pollCall is a call that takes or tries a lock, or yields.
var pollCall = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(pthread_mutex_lock|pthread_mutex_trylock|pthread_spin_lock|pthread_spin_trylock|sched_yield|stdbg_yield)\s*\(|\.(Lock|TryLock|RLock)\(\)|runtime\.Gosched\(\)`)
})

// pollingAgain is the step a thread stopped at its frame f (in the
// student's file) was polling again: f's line takes or tries a lock, or
// yields, inside a loop, and since its last other step the thread has
// taken, tried or yielded only, at lines of a loop of the same file (its
// first such step), which it went round to come back to f. nil otherwise.
func pollingAgain(r *report.Report, s src, f report.Frame, polled map[string]int) *report.Step {
	lines := s[filepath.Base(f.File)]
	if f.Line < 1 || f.Line > len(lines) || !pollCall().MatchString(lines[f.Line-1]) {
		return nil
	}
	here := report.Location{File: f.File, Line: f.Line, Source: strings.TrimSpace(lines[f.Line-1])}
	if !inLoop(s, here) {
		return nil
	}
	first := -1
	for _, j := range polled {
		w := r.Steps[j].Where
		if filepath.Base(w.File) == filepath.Base(f.File) && inLoop(s, w) && (first < 0 || j < first) {
			first = j
		}
	}
	if first < 0 {
		return nil
	}
	return &report.Step{Thread: r.Failure.Thread, Where: here}
}

// trylockGivesUp: a trylock of the student's, not in a loop, failed (the
// lock was busy) and the thread went on without the lock: the work that
// needed it was skipped, and a check of the program failed.
func trylockGivesUp(r *report.Report, s src) *Hint {
	if r.Kind != "assertion" && r.Kind != "crash" {
		return nil
	}
	for _, st := range r.Steps {
		if k, obj := classify(st.Call); k == opTryFailed && s.mine(st.Where.File) && !inLoop(s, st.Where) {
			return &Hint{Pattern: PatternTryGivesUp, Line: at(st.Where),
				Text: fmt.Sprintf("At %s thread %d tries the lock %s, finds it busy, and goes on without it: what it should have done "+
					"under the lock is not done. A trylock does not wait; take the lock with pthread_mutex_lock (mu.Lock() in Go), "+
					"which waits until it is free.", at(st.Where), st.Thread, obj)}
		}
	}
	return nil
}

// retryLivelock: a cycle that repeats for ever in which threads fail
// their trylocks (and back off) again and again.
func retryLivelock(r *report.Report) *Hint {
	if r.Cycle == "" || r.CycleStart < 1 {
		return nil
	}
	failed := map[int]report.Step{}
	for _, st := range r.Steps {
		if k, _ := classify(st.Call); st.N >= r.CycleStart && k == opTryFailed {
			if _, ok := failed[st.Thread]; !ok {
				failed[st.Thread] = st
			}
		}
	}
	if len(failed) == 0 {
		return nil
	}
	var first report.Step
	for _, st := range r.Steps {
		if f, ok := failed[st.Thread]; ok && st.N == f.N {
			first = f
			break
		}
	}
	return &Hint{Pattern: PatternRetryLivelock, Line: at(first.Where),
		Text: fmt.Sprintf("In the cycle that repeats for ever, threads take a lock, fail to get the next one (the trylock at %s), "+
			"let go and start again, in step with each other, so that none ever gets both: a back-off that every thread does "+
			"at the same time can go on for ever (a livelock). Make the threads take the locks in one fixed order instead "+
			"(the lower-numbered first): then none has to back off.", at(first.Where))}
}
