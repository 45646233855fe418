package rt

import (
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"github.com/stdbg/stdbg/internal/rtnames"
	"github.com/stdbg/stdbg/model/wire"
)

// The race detector's reports. stdbg starts the targets that hide their
// hand-overs from the race detector with GORACE's log_path set (see
// rtnames.WithRaceLog): the detector writes each report to a file of the
// process's own (log_path.PID) instead of standard error, and the
// transition in which a report appears ends the execution with a
// data-race failure carrying the report. Standard error is the program's,
// untouched: nothing of stdbg's stands between the program and whoever
// reads it, so nothing can fill up and stop the search.

// raceLog is the file of the race detector's reports in a process that
// hides the hand-overs. A checked goroutine looks at it at each of its
// scheduling points: the detector writes its report in the goroutine that
// made the racy access, before that goroutine goes on, so the report is
// found at the end of the very transition that raced, in every replay.
// The count of reports (runtime.RaceErrors) says when there is something
// new to read, so that a scheduling point makes no system call.
//
// The file is emptied once everything in it has been taken (rewind), so
// that it holds at most the reports of one transition: a search writes a
// report in every execution in which a race happens, and under a limit on
// the size of files (a grader's sandbox) the detector could not write
// those that came after the limit, races found in later executions
// included.
type raceLog struct {
	path []byte // the file's name, with a NUL at its end
	fd   int    // -1 until the file is opened (the detector makes it at its first report)
	seen int    // the count of reports when the file was last read
	data []byte // what was read and not yet looked at
	buf  []byte
	// wfd is the detector's own descriptor of the file once sought
	// (-1: none found); readTo is the offset read up to.
	wfd    int
	sought bool
	readTo int64
}

var raceReports *raceLog

// openRaceLog finds the file of the race detector's reports: log_path,
// the last one in GORACE, and the process id. Without one (a process that
// stdbg did not start, or a log_path of stdout or stderr), reports go to
// standard error, and stdbg does not see them: package testing still fails
// the test, and sthread says so (TestFailed).
//
//go:norace
func openRaceLog() {
	path := raceLogPath(os.Getenv("GORACE"))
	if path == "" || path == "stdout" || path == "stderr" {
		return
	}
	name := path + "." + strconv.Itoa(os.Getpid())
	raceReports = &raceLog{path: append([]byte(name), 0), fd: -1, seen: raceErrors(), buf: make([]byte, 64<<10)}
}

// raceLogPath returns the last log_path of the GORACE options opts.
func raceLogPath(opts string) string {
	path := ""
	for _, o := range strings.Fields(opts) {
		if v, ok := strings.CutPrefix(o, "log_path="); ok {
			path = v
		}
	}
	return path
}

// read keeps what the detector wrote to the file since the last read. It
// uses raw system calls: those of package syscall tell the detector about
// their buffers and order.
//
//go:norace
func (l *raceLog) read() {
	if l.fd < 0 {
		fd, _, e := syscall.RawSyscall6(syscall.SYS_OPENAT, atFDCWD, uintptr(unsafe.Pointer(&l.path[0])),
			uintptr(syscall.O_RDONLY|syscall.O_CLOEXEC), 0, 0, 0)
		if e != 0 {
			return
		}
		l.fd = int(fd)
	}
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(l.fd), uintptr(unsafe.Pointer(&l.buf[0])), uintptr(len(l.buf)))
		if e != 0 || int(n) <= 0 {
			return
		}
		l.readTo += int64(n)
		l.keep(l.buf[:n])
	}
}

// atFDCWD is AT_FDCWD (-100) as a system call's argument: a path relative
// to the working directory.
const atFDCWD = ^uintptr(99)

// The log's bytes are handled by whichever checked goroutine reaches a
// scheduling point, and those goroutines hide their hand-overs from the
// race detector: the log's own accesses must be hidden too. Its functions
// are //go:norace, and they copy and search by hand, since copy, append,
// string conversions and package bytes tell the detector about their
// buffers whatever calls them.

// keep appends p to the bytes not yet looked at.
//
//go:norace
func (t *raceLog) keep(p []byte) {
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

// takeRace returns the first complete race report written since the last
// call, or "".
//
//go:norace
func (t *raceLog) takeRace() string {
	if n := raceErrors(); n != t.seen {
		t.seen = n
		t.read()
	}
	for {
		b := t.data
		i := indexBytes(b, raceHeader)
		if i < 0 {
			if len(b) > 1<<16 {
				t.data = t.data[:0]
			}
			if len(t.data) == 0 && t.readTo > 0 {
				t.rewind()
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

// dropAll discards every report the detector has made so far, taken or
// not: at the start of an execution, what is in the file is an earlier
// execution's. One transition may make several reports (a swap that races
// on two elements writes one per address); the first ends its execution
// with a data-race failure, and the others stay behind. Left there, the
// next execution took the first of them at its first scheduling point:
// a race of the program's it never made, whose replay did not repeat
// itself, which ended the search there (and a race of that execution's
// own went unreported).
//
//go:norace
func (t *raceLog) dropAll() {
	if n := raceErrors(); n != t.seen {
		t.seen = n
		t.read()
	}
	t.data = t.data[:0]
	if t.readTo > 0 {
		t.rewind()
	}
}

// rewind empties the file, all of which has been read and taken, and
// reads it again from its start. The detector writes at the end of the
// file from then on (its descriptor is made to append), where the next
// read begins. Without the detector's descriptor (a file it has not
// opened, or not found), the file is left as it is.
//
//go:norace
func (t *raceLog) rewind() {
	if !t.sought {
		t.sought = true
		t.wfd = t.writer()
		if t.wfd >= 0 {
			fl, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(t.wfd), syscall.F_GETFL, 0)
			if e == 0 {
				_, _, e = syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(t.wfd), syscall.F_SETFL, fl|syscall.O_APPEND)
			}
			if e != 0 {
				t.wfd = -1
			}
		}
	}
	if t.wfd < 0 {
		return
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_FTRUNCATE, uintptr(t.wfd), 0, 0); e != 0 {
		return
	}
	syscall.RawSyscall(syscall.SYS_LSEEK, uintptr(t.fd), 0, 0) // SEEK_SET
	t.readTo = 0
}

// writer returns the detector's descriptor of the file t reads, one other
// than t's that refers to the same file and may write it (-1 if none).
//
//go:norace
func (t *raceLog) writer() int {
	var own syscall.Stat_t
	if _, _, e := syscall.RawSyscall(syscall.SYS_FSTAT, uintptr(t.fd), uintptr(unsafe.Pointer(&own)), 0); e != 0 {
		return -1
	}
	for fd := 0; fd < 1024; fd++ {
		if fd == t.fd {
			continue
		}
		var st syscall.Stat_t
		if _, _, e := syscall.RawSyscall(syscall.SYS_FSTAT, uintptr(fd), uintptr(unsafe.Pointer(&st)), 0); e != 0 ||
			st.Dev != own.Dev || st.Ino != own.Ino {
			continue
		}
		fl, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
		if e == 0 && fl&syscall.O_ACCMODE != syscall.O_RDONLY {
			return fd
		}
	}
	return -1
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
// GORACE): one that reaches the log came from a process started without
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
	rep = dropRaceMarks(rep)
	if raceWithOutsider(rep) {
		return wire.Failure{Tid: th.tid, Kind: wire.FailCannotJudge, Frames: th.last, Message: "the race detector reports a race " +
			"with a goroutine started before the check, whose accesses stdbg cannot order against the checked goroutines' " +
			"(it synchronises through the real locks and channels, they through stdbg's model of them):\n" + rep}
	}
	f := wire.Failure{Tid: th.tid, Kind: wire.FailRace, Message: raceThreads(th, rep), Frames: th.last}
	// A race of a channel's operations is told by sthread's functions,
	// under the program's frame that made the operation.
	f.File, f.Line = frameWhere(rep, func(fn, file string) bool { return !isRuntimeFrame(fn, file) && !rtnames.IsRuntimeFunc(fn) })
	return f
}
