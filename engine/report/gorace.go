package report

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/stdbg/stdbg/internal/lazyre"
)

// This file puts a report of Go's race detector, as a Go target under
// stdbg writes it, into the program's terms: the program's frames only
// (not stdbg's runtime, the Go runtime's or package testing's), paths
// relative to their module, the goroutines of the checked program named
// by their thread numbers (the target names them so, see sthread's
// racethreads.go), each thread with the go statement that started it
// (from the trace) and closures named as go test names them.

// stdbgRuntime is the import path of stdbg's Go runtime, whose frames a
// race report leaves out.
const stdbgRuntime = "github.com/stdbg/stdbg/sthread"

// raceThreadHead is the head of a thread's creation in a race report
// ("Thread 2 (running) created at:").
var raceThreadHead = lazyre.New(`^Thread (\d+) \(([a-z ]+)\) created at:$`)

// RaceMessage is msg, the message of a data race as a Go target under
// stdbg reports it (search.Outcome.Message: Go's race detector's report),
// in the program's terms as Build gives it, for a report made without a
// replay: with no trace, the go statements that started the threads are
// not named. Any other message is returned as it is.
func RaceMessage(msg string) string {
	if !strings.HasPrefix(msg, "WARNING: DATA RACE") {
		return msg
	}
	return goRace(msg, nil, moduleRoots{}.root, strings.Contains(msg, stdbgRuntime+"/lang.CheckTest"))
}

// goRace rewrites msg, a report of Go's race detector, into the program's
// terms; started says where each thread was started (the go statement, in
// the trace), modRoot the root of the module of a file ("" if none).
// wrapped says that the test functions were instrumented, their bodies
// made closures (goinstr): their closures are renamed as Go names them
// in the test as written.
func goRace(msg string, started map[int]Location, modRoot func(string) string, wrapped bool) string {
	sections := strings.Split(strings.TrimRight(msg, "\n"), "\n\n")
	var out []string
	for k, sec := range sections {
		lines := strings.Split(sec, "\n")
		if k == 0 && len(lines) > 1 && raceAccess.MatchString(lines[1]) {
			// The banner, then the first access.
			out = append(out, lines[0])
			lines = lines[1:]
		}
		head, frames := lines[0], lines[1:]
		if m := raceThreadHead.FindStringSubmatch(head); m != nil {
			tid, _ := strconv.Atoi(m[1])
			loc, ok := started[tid]
			if !ok {
				// Thread 1: the test's goroutine (or main's), which
				// no go statement of the program started.
				continue
			}
			out = append(out, "Thread "+m[1]+" ("+m[2]+") started at:\n"+
				raceFrame(loc.Func, loc.File, loc.Line, modRoot, wrapped))
			continue
		}
		if !raceAccess.MatchString(head) && !strings.HasPrefix(head, "Goroutine ") {
			out = append(out, sec)
			continue
		}
		var kept []string
		for i := 0; i+1 < len(frames); i += 2 {
			fn := strings.TrimSuffix(strings.TrimSpace(frames[i]), "()")
			pos := strings.TrimSpace(frames[i+1])
			if !programFrame(fn) {
				continue
			}
			pos, _, _ = strings.Cut(pos, " +0x")
			file, line := pos, 0
			if j := strings.LastIndexByte(pos, ':'); j > 0 {
				if n, err := strconv.Atoi(pos[j+1:]); err == nil {
					file, line = pos[:j], n
				}
			}
			kept = append(kept, raceFrame(fn, file, line, modRoot, wrapped))
		}
		if len(kept) == 0 && len(frames) >= 2 {
			// Nothing of the program's: the first frame says where.
			kept = append(kept, frames[0]+"\n"+frames[1])
		}
		out = append(out, head+"\n"+strings.Join(kept, "\n"))
	}
	if len(out) > 1 && !strings.Contains(out[0], "\n") {
		out[1] = out[0] + "\n" + out[1]
		out = out[1:]
	}
	return strings.Join(out, "\n\n")
}

// programFrame reports whether fn, a function of a race report's stack, is
// the program's: not stdbg's runtime, nor the Go runtime's, nor package
// testing's, which runs the test.
func programFrame(fn string) bool {
	for _, p := range []string{stdbgRuntime + "/", stdbgRuntime + ".", "runtime.", "internal/", "testing."} {
		if strings.HasPrefix(fn, p) {
			return false
		}
	}
	return true
}

// raceFrame renders a frame as the race detector does, the function
// named as Go names it in the program as written and the file relative
// to its module's root.
func raceFrame(fn, file string, line int, modRoot func(string) string, wrapped bool) string {
	if wrapped {
		fn = unwrapTestClosure(fn)
	}
	if root := modRoot(file); root != "" {
		if rel, err := filepath.Rel(root, file); err == nil && !strings.HasPrefix(rel, "..") {
			file = filepath.ToSlash(rel)
		}
	}
	pos := file
	if line > 0 {
		pos += ":" + strconv.Itoa(line)
	}
	return "  " + fn + "()\n      " + pos
}

// unwrapTestClosure names a function of an instrumented test as Go names
// it in the test as written. The instrumentation makes the body of
// TestX a closure, TestX.func1, so that the test's own closures are
// numbered inside it: TestX.func1 is TestX itself, TestX.func1.N is
// TestX.funcN and TestX.func1.N.M is TestX.funcN.M.
func unwrapTestClosure(fn string) string {
	dot := strings.LastIndexByte(fn, '/') + 1 // the package's last element
	i := strings.IndexByte(fn[dot:], '.')
	if i < 0 {
		return fn
	}
	pkg, rest := fn[:dot+i], fn[dot+i+1:]
	parts := strings.Split(rest, ".")
	if len(parts) < 2 || !isTestFunc(parts[0]) || parts[1] != "func1" {
		return fn
	}
	switch {
	case len(parts) == 2:
		parts = parts[:1]
	default:
		if _, err := strconv.Atoi(parts[2]); err != nil {
			return fn
		}
		parts = append([]string{parts[0], "func" + parts[2]}, parts[3:]...)
	}
	return pkg + "." + strings.Join(parts, ".")
}

// isTestFunc reports whether name is a test function's, TestXxx.
func isTestFunc(name string) bool {
	rest, ok := strings.CutPrefix(name, "Test")
	return ok && name != "TestMain" && (rest == "" || rest[0] < 'a' || rest[0] > 'z')
}

// moduleRoots finds the root of the module of a file: the nearest
// directory above it with a go.mod, remembered by directory.
type moduleRoots map[string]string

func (m moduleRoots) root(file string) string {
	if !filepath.IsAbs(file) {
		return ""
	}
	dir := filepath.Dir(file)
	if r, ok := m[dir]; ok {
		return r
	}
	r := ""
	for d := dir; ; {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil {
			// The standard library's and the module cache's files keep
			// their paths: a path relative to their module would not
			// say which it is.
			if !strings.HasPrefix(string(data), "module std\n") && !strings.HasPrefix(string(data), "module cmd\n") &&
				!strings.Contains(d, string(filepath.Separator)+filepath.Join("pkg", "mod")+string(filepath.Separator)) {
				r = d
			}
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	m[dir] = r
	return r
}
