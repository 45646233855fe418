package rt

import (
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"github.com/stdbg/stdbg/rtnames"
	"github.com/stdbg/stdbg/wire"
)

// The race detector's reports. Under stdbg find a race build writes its
// reports to standard error, which sthread puts through a pipe it reads
// (see race.go): the transition in which a report appears ends the
// execution with a data-race failure carrying the report.

// stderrTap is the pipe through which standard error passes in a race
// build under stdbg find. A checked goroutine drains it at each of its
// scheduling points: the detector writes its report in the goroutine that
// made the racy access, before that goroutine goes on, so the report is
// found at the end of the very transition that raced, in every replay.
type stderrTap struct {
	r, out int    // the pipe's read end and the real standard error
	data   []byte // what was read and not yet looked at
	buf    []byte
}

var tap *stderrTap

// tapStderr puts standard error through a pipe (of 1 MiB: a transition
// that writes more to standard error than that blocks).
//
//go:norace
func tapStderr() {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return
	}
	syscall.Syscall(syscall.SYS_FCNTL, uintptr(p[1]), 1031 /* F_SETPIPE_SZ */, 1<<20)
	orig, err := syscall.Dup(2)
	if err != nil {
		return
	}
	if err := syscall.Dup3(p[1], 2, 0); err != nil {
		return
	}
	syscall.Close(p[1])
	if err := syscall.SetNonblock(p[0], true); err != nil {
		return
	}
	tap = &stderrTap{r: p[0], out: orig, buf: make([]byte, 64<<10)}
}

// drain copies what is in the pipe to the real standard error, keeping it.
// It uses raw system calls: those of package syscall tell the detector
// about their buffers and order.
//
//go:norace
func (t *stderrTap) drain() {
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(t.r), uintptr(unsafe.Pointer(&t.buf[0])), uintptr(len(t.buf)))
		if e != 0 || int(n) <= 0 {
			return
		}
		for off := 0; off < int(n); {
			w, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(t.out), uintptr(unsafe.Pointer(&t.buf[off])), uintptr(int(n)-off))
			if e != 0 {
				break
			}
			off += int(w)
		}
		t.keep(t.buf[:n])
	}
}

// The tap's bytes are handled by whichever checked goroutine reaches a
// scheduling point, and those goroutines hide their hand-overs from the
// race detector: the tap's own accesses must be hidden too. Its functions
// are //go:norace, and they copy and search by hand, since copy, append,
// string conversions and package bytes tell the detector about their
// buffers whatever calls them.

// keep appends p to the bytes not yet looked at.
//
//go:norace
func (t *stderrTap) keep(p []byte) {
	n := len(t.data)
	if n+len(p) > cap(t.data) {
		grown := make([]byte, n, max(2*cap(t.data), n+len(p), 4096))
		copyBytes(grown, t.data)
		t.data = grown
	}
	t.data = t.data[:n+len(p)]
	copyBytes(t.data[n:], p)
}

// copyBytes is copy(dst, src).
//
//go:norace
func copyBytes(dst, src []byte) int {
	n := min(len(dst), len(src))
	for i := 0; i < n; i++ {
		dst[i] = src[i]
	}
	return n
}

// indexBytes is bytes.Index(s, sep), for a sep that is not empty.
//
//go:norace
func indexBytes(s, sep []byte) int {
	for i := 0; i+len(sep) <= len(s); i++ {
		if s[i] != sep[0] {
			continue
		}
		j := 1
		for j < len(sep) && s[i+j] == sep[j] {
			j++
		}
		if j == len(sep) {
			return i
		}
	}
	return -1
}

var (
	raceSep    = []byte("==================\n")
	raceHeader = []byte("WARNING: DATA RACE")
)

// takeRace returns the first complete race report written to standard
// error since the last call, or "".
//
//go:norace
func (t *stderrTap) takeRace() string {
	t.drain()
	for {
		b := t.data
		i := indexBytes(b, raceHeader)
		if i < 0 {
			if len(b) > 1<<16 {
				t.data = t.data[:0]
			}
			return ""
		}
		j := indexBytes(b[i:], raceSep)
		if j < 0 {
			return ""
		}
		own := make([]byte, j)
		copyBytes(own, b[i:i+j])
		rep := unsafe.String(unsafe.SliceData(own), len(own))
		t.data = t.data[:copyBytes(t.data, b[i+j+len(raceSep):])]
		// A report of stdbg's own code is not the program's.
		if internalRace(rep) {
			continue
		}
		return rep
	}
}

// isRuntimeFrame reports whether a frame of a race report is the Go
// runtime's.
func isRuntimeFrame(fn, file string) bool {
	return strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "internal/runtime/") ||
		strings.Contains(file, "/src/runtime/") || strings.Contains(file, "/src/internal/runtime/")
}

// firstFrame returns the first frame of stack text that is not the
// runtime's.
func firstFrame(stack string) (file string, line int) {
	return frameWhere(stack, func(fn, file string) bool { return !isRuntimeFrame(fn, file) })
}

// frameWhere returns the first frame of stack text for which ok holds. A
// frame of a race report is two lines: "  function()" and
// "      /path/file.go:line +0x...". It is read without package regexp,
// whose matchers are shared through a sync.Pool: the goroutines that read
// reports hide their synchronisation from the race detector (see race.go),
// which then took two of them reusing one matcher for a race of the
// program's.
func frameWhere(stack string, ok func(fn, file string) bool) (file string, line int) {
	for len(stack) > 0 {
		var fl string
		fl, stack, _ = strings.Cut(stack, "\n")
		fn, found := strings.CutPrefix(fl, "  ")
		if !found || strings.HasPrefix(fn, " ") {
			continue
		}
		if fn, found = strings.CutSuffix(fn, "()"); !found || fn == "" || strings.ContainsAny(fn, " \t") {
			continue
		}
		pl, _, _ := strings.Cut(stack, "\n")
		pos, found := strings.CutPrefix(pl, "      /")
		if !found {
			continue
		}
		pos, _, _ = strings.Cut(pos, " ")
		i := strings.LastIndexByte(pos, ':')
		if i < 0 || !strings.HasSuffix(pos[:i], ".go") {
			continue
		}
		n, err := strconv.Atoi(pos[i+1:])
		if err != nil || !ok(fn, "/"+pos[:i]) {
			continue
		}
		return "/" + pos[:i], n
	}
	return "", 0
}

// stdSrc is the directory of the standard library's sources, as the Go
// runtime names them ("/usr/local/go/src/"), "" if it cannot be told
// (a build with -trimpath).
var stdSrc = func() string {
	_, file, _, _ := runtime.Caller(0)
	f := runtime.FuncForPC(reflect.ValueOf(strings.Cut).Pointer())
	if f == nil {
		return ""
	}
	std, _ := f.FileLine(f.Entry())
	dir, ok := strings.CutSuffix(std, "strings/strings.go")
	if !ok || !strings.HasSuffix(dir, "/src/") || strings.HasPrefix(file, dir) {
		return ""
	}
	return dir
}()

// internalRace reports whether either access of race report rep was made
// by stdbg's own code, as rtnames.RaceSuppressions names it: a frame of
// either stack is such a function's. The race detector makes no such
// report when stdbg started the process (it passes the suppressions in
// GORACE): one that reaches the tap came from a process started without
// them, and is dropped here.
func internalRace(rep string) bool {
	first, second, _ := strings.Cut(rep, "\nPrevious ")
	if i := strings.Index(second, "\nGoroutine "); i >= 0 {
		second = second[:i]
	}
	own := func(fn, _ string) bool { return rtnames.IsSuppressed(fn) }
	for _, st := range []string{first, second} {
		if f, _ := frameWhere(st, own); f != "" {
			return true
		}
	}
	return false
}

// raceFailure is the failure of a data race report rep, found when thread
// th reached a scheduling point.
//
//go:norace
func raceFailure(th *Thread, rep string) wire.Failure {
	if raceWithOutsider(rep) {
		return wire.Failure{Tid: th.tid, Kind: wire.FailCannotJudge, Frames: th.last, Message: "the race detector reports a race " +
			"with a goroutine started before the check, whose accesses stdbg cannot order against the checked goroutines' " +
			"(it synchronises through the real locks and channels, they through stdbg's model of them):\n" + rep}
	}
	f := wire.Failure{Tid: th.tid, Kind: wire.FailRace, Message: rep, Frames: th.last}
	f.File, f.Line = firstFrame(rep)
	return f
}
