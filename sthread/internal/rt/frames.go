package rt

import (
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/stdbg/stdbg/internal/rtnames"
)

// Where operations are shown. A scheduling point is shown at the user's
// call of the sthread function under way: the frames of package sthread,
// of its mirrors of the standard library and of this runtime are skipped,
// told apart by their source files (see isSthreadFile).

// Capture returns the frames of the user's call of the sthread function
// under way, at most the runner's depth, using buf.
//
//go:norace
func (th *Thread) Capture(buf []uintptr) []uintptr {
	pcs := buf[:callers(buf)]
	i := 0
	for i < len(pcs) && inSthread(pcs[i]) {
		i++
	}
	if th.origin != nil && (i == len(pcs) || isGoexit(pcs[i])) {
		// A goroutine of sthread's own (a timer): its operations are
		// shown where it was made.
		return th.origin
	}
	return pcs[i:min(len(pcs), i+th.ex.r.cfg.Depth)]
}

// isGoexit reports whether return address pc is in runtime.goexit, the
// bottom of every goroutine's stack.
//
//go:norace
func isGoexit(pc uintptr) bool {
	f := runtime.FuncForPC(pc - 1)
	return f != nil && f.Name() == "runtime.goexit"
}

// pcClass caches inSthread, direct-mapped: an entry is pc<<1 | in. It is
// read and written atomically, so that a stale goroutine may use it too,
// except in race builds that hide sthread's hand-overs (quietLoad): frames
// are captured before a goroutine stops reporting synchronisation, and an
// entry written by one goroutine and read by the next that called the same
// sthread function ordered the two for the detector, in each process's
// first execution, which hid races. An entry is a pure function of its pc.
var pcClass [1 << 12]atomic.Uint64

// inSthread reports whether the return address pc lies in a function of
// package sthread or of one of its packages, not counting the functions
// inlined into it: a user's function into which an sthread method was
// inlined is the user's.
//
//go:norace
func inSthread(pc uintptr) bool {
	slot := &pcClass[(pc^pc>>12)&(uintptr(len(pcClass))-1)]
	if e := quietLoad(slot); e>>1 == uint64(pc) {
		return e&1 == 1
	}
	in := false
	if f := runtime.FuncForPC(pc - 1); f != nil {
		if outer := runtime.FuncForPC(f.Entry()); outer != nil {
			file, _ := outer.FileLine(f.Entry())
			in = stdbgFrame(outer.Name(), file)
		}
	}
	e := uint64(pc) << 1
	if in {
		e |= 1
	}
	quietStore(slot, e)
	return in
}

// userFrame returns the innermost frame at return address pc that is not
// in sthread's packages (the user's call of an sthread method inlined into
// it), or the outermost frame.
//
//go:norace
func userFrame(pc uintptr) runtime.Frame {
	// CallersFrames expands the functions inlined at a PC only when more
	// PCs follow: the 0 that follows is skipped.
	frames := runtime.CallersFrames([]uintptr{pc, 0})
	for {
		fr, more := frames.Next()
		if !more || !isSthreadFile(fr.File) {
			return fr
		}
	}
}

// sthreadDir is the directory of package sthread's sources, as the Go
// runtime names them: this package's, two levels up.
var sthreadDir = func() string {
	_, file, _, _ := runtime.Caller(0)
	dir := file[:strings.LastIndexByte(file, '/')+1]
	return strings.TrimSuffix(dir, "internal/rt/")
}()

// isSthreadFile reports whether file is a source of package sthread or of
// one of its packages (not one of their tests, nor test data). Frames are
// told apart by file rather than by function name: a closure of an sthread
// function inlined into the user's code, such as the iterator of Chan.All,
// is named after the user's function.
//
//go:norace
func isSthreadFile(file string) bool {
	return strings.HasPrefix(file, sthreadDir) && !strings.HasSuffix(file, "_test.go") &&
		!strings.Contains(file[len(sthreadDir):], "testdata/")
}

// stdbgFrame reports whether a frame of function fn, in file, is stdbg's
// and not the program's: in a source of sthread's packages, or a function
// of stdbg's runtime that rtnames names.
//
//go:norace
func stdbgFrame(fn, file string) bool {
	return isSthreadFile(file) || rtnames.IsRuntimeFunc(fn)
}

// IsSthreadFile reports whether file is a source of stdbg's runtime
// (package sthread's, as the program was built with it), not the
// program's.
//
//go:norace
func IsSthreadFile(file string) bool { return isSthreadFile(file) }

// funcLine returns a pseudo return address that symbolizes to the first
// line of the function at entry, where a goroutine's return is shown.
//
//go:norace
func funcLine(entry uintptr) uintptr { return entry + 1 }

// FuncLine returns the frames that show an operation at the first line of
// function f, where a goroutine running it is shown to end.
//
//go:norace
func FuncLine(f func()) []uintptr { return []uintptr{funcLine(funcPC(f))} }

// goid returns the id of the calling goroutine, from its stack dump.
//
//go:norace
func goid() uint64 {
	var buf [64]byte
	s := strings.TrimPrefix(string(buf[:runtime.Stack(buf[:], false)]), "goroutine ")
	id, _ := strconv.ParseUint(s[:max(strings.IndexByte(s, ' '), 0)], 10, 64)
	return id
}

// goroutineStack returns the functions and source positions of the user's
// frames of goroutine id, innermost first, from the dump of all goroutines
// (not the runtime's, sthread's or the standard library's).
//
//go:norace
func goroutineStack(id uint64) []string {
	_, frames := goroutineState(id)
	return frames
}

// goroutineState returns the state of goroutine id as the Go runtime's
// dump of all goroutines says it ("running", "runnable", "chan receive",
// "sync.Mutex.Lock", "sleep", ...; "" if it is not there), and the
// functions and source positions of its user's frames, innermost first
// (not the runtime's, sthread's or the standard library's).
//
//go:norace
func goroutineState(id uint64) (state string, frames []string) {
	if id == 0 {
		return "", nil
	}
	buf := make([]byte, 1<<20)
	dump := string(buf[:runtime.Stack(buf, true)])
	head := "goroutine " + strconv.FormatUint(id, 10) + " ["
	i := strings.Index(dump, head)
	if i < 0 {
		return "", nil
	}
	block := dump[i:]
	if j := strings.Index(block, "\n\n"); j >= 0 {
		block = block[:j]
	}
	lines := strings.Split(block, "\n")
	state = strings.TrimPrefix(lines[0], head)
	if j := strings.IndexAny(state, ",]"); j >= 0 {
		state = state[:j]
	}
	for k := 1; k+1 < len(lines); k += 2 {
		fn := lines[k]
		if p := strings.LastIndexByte(fn, '('); p > 0 {
			fn = fn[:p]
		}
		if strings.HasPrefix(fn, trampolineName) {
			break
		}
		pos := strings.TrimSpace(lines[k+1])
		if p := strings.LastIndex(pos, " +0x"); p > 0 {
			pos = pos[:p]
		}
		file, _, _ := strings.Cut(pos, ":")
		if strings.HasPrefix(fn, "runtime.") || isSthreadFile(file) || stdSrc != "" && strings.HasPrefix(file, stdSrc) {
			continue
		}
		if i := strings.LastIndexByte(fn, '/'); i >= 0 {
			fn = fn[i+1:] // the package's name stays: the code may be another module's
		}
		frames = append(frames, fn+" ("+filepath.Base(pos)+")")
	}
	return state, frames
}

// waitsForOthers reports whether a goroutine in the given state (as
// goroutineState says it) is parked by the Go runtime until another
// goroutine, or the outside world, acts: on a channel, in a select, on a
// lock or a wait group of the standard library, on a network or file
// descriptor. A goroutine that runs, is runnable, sleeps or is in a
// system call goes on by itself.
//
//go:norace
func waitsForOthers(state string) bool {
	switch {
	case strings.HasPrefix(state, "chan "), strings.HasPrefix(state, "select"), strings.HasPrefix(state, "sync."),
		state == "semacquire", state == "IO wait":
		return true
	}
	return false
}

// Locate is the checker's Locator: "file.go:12".
//
// It and what describes the goroutines outside the check run in the
// scheduler, whose synchronisation is hidden from the race detector (see
// race.go), while the program runs: they format without package fmt,
// whose printers a sync.Pool shares with the program. The detector, not
// told that the scheduler put a printer back, would take the program's
// next use of it for a race with the scheduler's: one that stdbg does not
// report, but that fails the test under way (package testing fails a
// test during which the detector reported a race).
//
//go:norace
func Locate(pc uint64) string {
	fr := userFrame(uintptr(pc))
	if fr.File == "" {
		return ""
	}
	return filepath.Base(fr.File) + ":" + strconv.Itoa(fr.Line)
}

// shortFunc is a function's name without its package path.
//
//go:norace
func shortFunc(fn *runtime.Func) string {
	if fn == nil {
		return "?"
	}
	return shortName(fn.Name())
}

// shortName drops the package path from a qualified Go name:
// "example.com/m/pkg.TestX.func1" is "TestX.func1".
//
//go:norace
func shortName(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.IndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return name
}
