package rt

import (
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/stdbg/stdbg/internal/rtnames"
)

// The program's own view of its stack (runtime.Caller and runtime.Callers,
// which stdbg's instrumentation rewrites into sthread/runtime's): the
// frames of stdbg's runtime are left out, so that what the program prints
// of its stack (testify's "Error Trace", a logger's caller, an error's
// stack) names the frames go test would show and none of stdbg's.
//
// What go test shows below the user's frames: a goroutine's stack ends in
// runtime.goexit, whose frame the program sees in Go too; a test's
// function is called by package testing's tRunner. Under stdbg the body of
// a test function runs inside lang.CheckTest, on a goroutine of the check
// (or, outside a check, called from the test function's own frame, which
// the instrumentation made a wrapper): below the body the program sees the
// frames below the test function as package testing called it (tRunner,
// runtime.goexit), recorded when the test began (TestBegun). So testify,
// which stops at tRunner, lists the same lines as under go test, and a
// goroutine's trace ends at runtime.goexit's line as it does there.

// testTail holds the return addresses of the frames below the test
// function that package testing runs (TestBegun): tRunner and
// runtime.goexit, then 0s. They are the same for every test of a process.
// Its words are read and written quietly (quietLoad), as pcClass's: an
// atomic that every test's start writes and any goroutine that asks for
// its stack reads would order them for the race detector, and hide races.
var testTail [8]atomic.Uint64

// checkTest is the qualified name of the function that runs the body of a
// rewritten test function (sthread/lang's CheckTest), as the Go runtime
// spells it; its closures' names follow it with a dot.
const checkTest = rtnames.Package + "/lang.CheckTest"

// TestBegun records, from the function that runs the body of a test
// (lang.CheckTest), the frames below the test function that called it,
// skip frames up from TestBegun's caller: where the body's stack goes on,
// as the program sees it (Callers).
//
//go:norace
func TestBegun(skip int) {
	var pcs [len(testTail)]uintptr
	n := runtime.Callers(skip+2, pcs[:])
	for i := range testTail {
		v := uint64(0)
		if i < n {
			v = uint64(pcs[i])
		}
		quietStore(&testTail[i], v)
	}
}

// frameClass caches what userCallers needs to know of a return address,
// direct-mapped as pcClass: an entry is pc<<2 | hidden<<1 | checkTest,
// hidden for a frame of stdbg's runtime, checkTest for one of CheckTest.
var frameClass [1 << 10]atomic.Uint64

// classify returns whether the frame at return address pc (of
// runtime.Callers' answer) is stdbg's, and whether it is CheckTest's.
//
//go:norace
func classify(pc uintptr) (hidden, inCheckTest bool) {
	slot := &frameClass[(pc^pc>>10)&(uintptr(len(frameClass))-1)]
	if e := quietLoad(slot); e>>2 == uint64(pc) {
		return e&2 != 0, e&1 != 0
	}
	fn, file := frameAt(pc)
	hidden = stdbgFrame(fn, file)
	inCheckTest = fn == checkTest || strings.HasPrefix(fn, checkTest+".")
	e := uint64(pc) << 2
	if hidden {
		e |= 2
	}
	if inCheckTest {
		e |= 1
	}
	quietStore(slot, e)
	return hidden, inCheckTest
}

// userCallers returns the return addresses of the calling goroutine's
// stack as the program sees it, one per frame (runtime.Callers gives each
// function inlined into another a frame of its own), from runtime.Callers'
// own frame on: the frames of stdbg's runtime left out, and below the body
// of a test function (a frame of CheckTest), the frames TestBegun
// recorded.
//
//go:norace
func userCallers() []uintptr {
	buf := make([]uintptr, 64)
	var raw []uintptr
	for {
		n := runtime.Callers(0, buf)
		if n < len(buf) {
			raw = buf[:n]
			break
		}
		buf = make([]uintptr, 2*len(buf))
	}
	if len(raw) == 0 {
		return nil
	}
	// raw[0] is runtime.Callers' frame, which may be inlined into this
	// function: kept, as the program's runtime.Callers has it.
	out := raw[:1]
	for _, pc := range raw[1:] {
		hidden, inCheckTest := classify(pc)
		if !hidden {
			out = append(out, pc)
			continue
		}
		if inCheckTest {
			for i := range testTail {
				pc := uintptr(quietLoad(&testTail[i]))
				if pc == 0 {
					break
				}
				out = append(out, pc)
			}
			break
		}
	}
	return out
}

// frameAt returns the function and file of the frame at return address pc
// of runtime.Callers' answer: a function inlined into another has a return
// address of its own there, at which it is the innermost function.
//
//go:norace
func frameAt(pc uintptr) (fn, file string) {
	// CallersFrames expands the functions inlined at a PC only when more
	// PCs follow: the 0 that follows is skipped.
	fr, _ := runtime.CallersFrames([]uintptr{pc, 0}).Next()
	return fr.Function, fr.File
}

// Callers is runtime.Callers as the program sees its stack: it fills pc
// with the return addresses of the calling goroutine's frames, skip of
// them left out (0 is runtime.Callers' own frame, 1 the caller's), and
// returns how many it wrote. The frames of stdbg's runtime are not among
// them. (skip counts return addresses; runtime.Callers counts the
// functions inlined at one as well.)
//
//go:norace
func Callers(skip int, pc []uintptr) int {
	pcs := userCallers()
	if skip < 0 {
		skip = 0
	}
	if skip >= len(pcs) {
		return 0
	}
	return copy(pc, pcs[skip:])
}

// Caller is runtime.Caller as the program sees its stack: the program
// counter, file and line of the frame skip frames up from the caller of
// Caller (0: that caller), counting the functions inlined into others, and
// false when the stack has no such frame. The frames of stdbg's runtime
// are not counted.
//
//go:norace
func Caller(skip int) (pc uintptr, file string, line int, ok bool) {
	pcs := userCallers()
	if len(pcs) < 2 || skip < 0 {
		return 0, "", 0, false
	}
	frames := runtime.CallersFrames(pcs[1:]) // (pcs[0] is runtime.Callers')
	for {
		fr, more := frames.Next()
		if skip == 0 {
			return fr.PC, fr.File, fr.Line, fr.PC != 0
		}
		if !more {
			return 0, "", 0, false
		}
		skip--
	}
}
