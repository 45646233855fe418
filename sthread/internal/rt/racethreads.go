package rt

import (
	"runtime"
	"strconv"
	"strings"
)

// The race detector numbers goroutines its own way, neither as the Go
// runtime does nor as the schedule does. raceThreads names the goroutines
// of a report that are threads of the execution by their thread numbers,
// the numbers of the schedule and the trace: the goroutine of the report's
// first access is the thread that made it (the detector writes the report
// in the goroutine that made the racy access, before it goes on); another
// is the thread whose function is the outermost of its stack's that a
// thread runs, when one thread alone runs it.

// threadRun is the function at the bottom of every thread's stack.
const threadRun = "github.com/stdbg/stdbg/sthread/internal/rt.(*Thread).run()"

// raceThreads names the goroutines of race report rep that are threads of
// th's execution by their thread numbers: "by goroutine 14:" becomes "by
// thread 2:" and "Goroutine 14 (running) created at:" "Thread 2 (running)
// created at:". Other goroutines, and those it cannot tell, keep their
// numbers.
//
//go:norace
func raceThreads(th *Thread, rep string) string {
	ex := th.ex
	if ex == nil {
		return rep
	}
	entries := make([]string, len(ex.threads)) // by thread number - 1
	for i, t := range ex.threads {
		if f := runtime.FuncForPC(t.fn); f != nil {
			entries[i] = f.Name() + "()"
		}
	}
	tids := map[string]int{}
	first := true
	lines := strings.Split(rep, "\n")
	for i, l := range lines {
		_, id, ok := strings.Cut(l, " by goroutine ")
		if !ok || !strings.HasSuffix(id, ":") {
			continue
		}
		id = strings.TrimSuffix(id, ":")
		frames := threadFrames(lines[i+1:])
		tid := 0
		if first {
			// (A stack the detector cut short does not say.)
			if len(frames) == 0 || hasFrame(frames, entries[th.tid-1]) {
				tid = th.tid
			}
		} else {
			tid = threadOf(frames, entries, th.tid)
		}
		if tid > 0 {
			tids[id] = tid
		}
		first = false
	}
	if len(tids) == 0 {
		return rep
	}
	for i, l := range lines {
		lines[i] = renameGoroutine(l, tids)
	}
	return strings.Join(lines, "\n")
}

// threadFrames returns the functions of the stack that lines begin with,
// outermost first, from the one above the thread's run (nil if the stack
// does not end in it).
func threadFrames(lines []string) []string {
	var fns []string
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			break
		}
		if !strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "   ") {
			continue
		}
		fn := strings.TrimSpace(l)
		if fn == threadRun {
			for i, j := 0, len(fns)-1; i < j; i, j = i+1, j-1 {
				fns[i], fns[j] = fns[j], fns[i]
			}
			return fns
		}
		fns = append(fns, fn)
	}
	return nil
}

func hasFrame(frames []string, fn string) bool {
	for _, f := range frames {
		if f == fn {
			return true
		}
	}
	return false
}

// threadOf returns the thread whose stack frames are, other than thread
// not: the outermost of its frames that is a thread's function names it,
// when one thread alone runs that function (0 if none does, or several).
func threadOf(frames, entries []string, not int) int {
	for _, fn := range frames {
		tid := 0
		for k, e := range entries {
			if e != fn || k+1 == not {
				continue
			}
			if tid != 0 {
				return 0 // two threads run the function
			}
			tid = k + 1
		}
		if tid != 0 {
			return tid
		}
	}
	return 0
}

// renameGoroutine renames the goroutine of one line of a race report, an
// access's head ("... by goroutine N:") or a creation's ("Goroutine N
// (state) created at:"), when it is a thread's.
func renameGoroutine(line string, tids map[string]int) string {
	if head, id, ok := strings.Cut(line, " by goroutine "); ok && strings.HasSuffix(id, ":") {
		if tid, ok := tids[strings.TrimSuffix(id, ":")]; ok {
			return head + " by thread " + strconv.Itoa(tid) + ":"
		}
		return line
	}
	if rest, ok := strings.CutPrefix(line, "Goroutine "); ok {
		id, tail, _ := strings.Cut(rest, " ")
		if tid, ok := tids[id]; ok && strings.HasSuffix(tail, "created at:") {
			return "Thread " + strconv.Itoa(tid) + " " + tail
		}
	}
	return line
}
