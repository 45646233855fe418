package grade

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/stdbg/stdbg/internal/lazyre"

	"github.com/stdbg/stdbg/engine/report"
)

// The hints about locks and shared memory: locks taken in opposite orders,
// a lock not released (an early return), an unlock too many, a data race
// on the student's line, and a lock declared where every call gets its own.
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
	if r.Kind == "misuse" && strings.Contains(r.Message, "relock") && len(r.Steps) > 0 {
		// A thread locks a mutex it holds already: it took it before
		// and never released it, or it holds it in a function that
		// called the one that locks it again.
		last := r.Steps[len(r.Steps)-1]
		if h := heldByCaller(r, s, last, len(r.Steps)-1); h != nil {
			return h
		}
		h := &Hint{Pattern: PatternUnlockMissing, Line: at(last.Where),
			Text: fmt.Sprintf("At %s thread %d locks a lock it already holds: it took it before and some path did not release it.",
				at(last.Where), last.Thread)}
		addReturn(h, r, s, last.Thread, len(r.Steps)-1)
		return h
	}
	for _, w := range r.Waits {
		m := heldBy.FindStringSubmatch(w.Text)
		if m == nil {
			continue
		}
		holder, _ := strconv.Atoi(m[1])
		if holder == w.Thread {
			// A lock its waiter holds itself: taken by a function that
			// called the one that locks it again?
			if call := lockCallAt(r, w); call != "" {
				last := report.Step{Thread: w.Thread, Call: call, Where: w.Where}
				if h := heldByCaller(r, s, last, len(r.Steps)); h != nil {
					return h
				}
			}
		}
		if !strings.Contains(w.Text, "finished") && holder != w.Thread {
			continue
		}
		h := &Hint{Pattern: PatternUnlockMissing, Line: at(w.Where),
			Text: fmt.Sprintf("The lock awaited at %s is still held by thread %d, which %s: some path through the code takes the lock "+
				"and never releases it.", at(w.Where), holder, map[bool]string{true: "is the waiting thread itself", false: "has finished"}[holder == w.Thread])}
		addReturn(h, r, s, holder, len(r.Steps))
		return h
	}
	return nil
}

// shortFunc is a function's name without its package path ("Get" for
// "main.(*Cache).Get").
func shortFunc(fn string) string {
	if i := strings.LastIndexByte(fn, '.'); i >= 0 {
		return fn[i+1:]
	}
	return fn
}

// lockCallAt is the lock call a wait is blocked in, as a step would
// write it ("Mutex.Lock(c.mu)"), from the wait's text ("waits in
// Mutex.Lock for c.mu (held by goroutine 1)").
func lockCallAt(r *report.Report, w report.Wait) string {
	m := lockWait.FindStringSubmatch(w.Text)
	if m == nil {
		return ""
	}
	return m[1] + "(" + m[2] + ")"
}

var lockWait = lazyre.New(`^waits in (\S*[Ll]ock) for (\S+)`)

// heldByCaller: the relock at last (a step, or a wait) is in another
// function than the lock its thread holds, taken among the steps before
// index before (with no return before its unlock) by a function that then
// called the one that locks again; or in the same function at the same
// line, entered again through code it called.
func heldByCaller(r *report.Report, s src, last report.Step, before int) *Hint {
	_, m := classify(last.Call)
	for i := before - 1; i >= 0; i-- {
		st := r.Steps[i]
		if k, obj := classify(st.Call); st.Thread != last.Thread || k != opLock || obj != m {
			continue
		}
		if st.Where.Func == "" || !s.mine(st.Where.File) || returnBeforeUnlock(s, st.Where.File, st.Where.Line) > 0 {
			return nil
		}
		if st.Where.Func == last.Where.Func {
			if st.Where.Line != last.Where.Line {
				return nil
			}
			// The same lock at the same line: the function was
			// entered again, through code it called with the lock held.
			fn := shortFunc(last.Where.Func)
			return &Hint{Pattern: PatternHeldByCaller, Line: at(last.Where),
				Text: fmt.Sprintf("%s takes %s at %s while thread %d already holds it: an earlier call of %s took it there "+
					"and, before releasing it, called code that called %s again. A mutex cannot be taken twice by one thread: "+
					"do not hold a lock while you call code that may come back (a callback, a load function); release it "+
					"first, and take it again after.", fn, m, at(last.Where), last.Thread, fn, fn)}
		}
		return &Hint{Pattern: PatternHeldByCaller, Line: at(last.Where),
			Text: fmt.Sprintf("%s takes %s at %s, but thread %d already holds it: %s took it at %s and called %s without "+
				"releasing it. A mutex (not recursive) cannot be taken twice by one thread. In %s, do directly what %s does "+
				"(the lock is already held), or give %s a version that expects the lock held.", shortFunc(last.Where.Func), m,
				at(last.Where), last.Thread, shortFunc(st.Where.Func), at(st.Where), shortFunc(last.Where.Func),
				shortFunc(st.Where.Func), shortFunc(last.Where.Func), shortFunc(last.Where.Func))}
	}
	return nil
}

// addReturn completes an unlock-missing hint with the return that skips
// the unlock: after the lock thread holder took last before step end, and
// before its unlock.
func addReturn(h *Hint, r *report.Report, s src, holder, end int) {
	for i := end - 1; i >= 0; i-- {
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
		return
	}
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
	// A C race report names both accesses' lines ("at buffer.c:38"):
	// the first in the student's files.
	for _, m := range raceAt.FindAllStringSubmatch(r.Message, -1) {
		if n, err := strconv.Atoi(m[2]); err == nil && s.mine(m[1]) {
			where = report.Location{File: m[1], Line: n, Source: s.line(m[1], n)}
			break
		}
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

// raceAt finds the lines a race report names.
var raceAt = lazyre.New(`at (\S+\.\w+):(\d+)`)

// line is the text of line n of the student's file.
func (s src) line(file string, n int) string {
	lines := s[filepath.Base(file)]
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[n-1])
}

var (
	cSyncDecl  = lazyre.New(`^\s+(pthread_mutex_t|pthread_cond_t|pthread_once_t|pthread_rwlock_t|pthread_spinlock_t|mtx_t|cnd_t)\s+(\w+)`)
	goSyncDecl = lazyre.New(`^\s+(?:var\s+(\w+)\s+\*?sync\.(Mutex|RWMutex|Once)\b|(\w+)\s*:=\s*(?:&|new\()sync\.(Mutex|RWMutex|Once)\b|(\w+)\s*:=\s*sync\.(Mutex|RWMutex|Once)\{)`)
	funcHeader = lazyre.New(`^(?:func\s+(?:\([^)]*\)\s*)?(\w+)|[A-Za-z_][\w\s\*]*?\b(\w+)\s*\()`)
)

// localSync: a lock or a Once declared inside the function that uses it
// (not static, and in Go not shared with goroutines the function starts):
// every call makes its own, so it orders nothing between threads. Looked
// for on a data race or a failed check.
func localSync(r *report.Report, s src) *Hint {
	if r.Kind != "data-race" && r.Kind != "assertion" && r.Kind != "crash" {
		return nil
	}
	files := make([]string, 0, len(s))
	for f := range s {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, file := range files {
		lines := s[file]
		fn, start := "", 0
		for i, raw := range lines {
			t := strings.TrimSpace(raw)
			if raw != "" && raw[0] != ' ' && raw[0] != '\t' {
				if raw == "}" {
					fn = ""
					continue
				}
				if m := funcHeader.FindStringSubmatch(raw); m != nil && !strings.HasSuffix(t, ";") &&
					!strings.HasPrefix(t, "struct") && !strings.HasPrefix(t, "typedef") && !strings.HasPrefix(t, "#") {
					fn, start = m[1]+m[2], i
				}
				continue
			}
			if fn == "" || strings.Contains(raw, "static") {
				continue
			}
			name, kind := "", ""
			if m := cSyncDecl.FindStringSubmatch(raw); m != nil && !strings.HasSuffix(file, ".go") {
				name, kind = m[2], m[1]
			} else if m := goSyncDecl.FindStringSubmatch(raw); m != nil && strings.HasSuffix(file, ".go") {
				name, kind = m[1]+m[3]+m[5], "sync."+m[2]+m[4]+m[6]
				if startsGoroutine(lines, start) {
					continue // shared with the goroutines it starts
				}
			}
			if name == "" {
				continue
			}
			return &Hint{Pattern: PatternLocalSync, Line: fmt.Sprintf("%s:%d", file, i+1),
				Text: fmt.Sprintf("%s (a %s) is declared inside %s, at %s:%d: every call makes a new one, so two threads never use "+
					"the same %s and it orders nothing between them. Declare it once, where every caller sees the same one "+
					"(a global or package-level variable, or a field of the shared structure).", name, kind, fn, file, i+1, name)}
		}
	}
	return nil
}

// startsGoroutine reports a go statement in the Go function whose header
// is at line index start.
func startsGoroutine(lines []string, start int) bool {
	for _, raw := range lines[start+1:] {
		if raw == "}" {
			return false
		}
		if t := strings.TrimSpace(raw); strings.HasPrefix(t, "go ") {
			return true
		}
	}
	return false
}
