// Package runtime is the part of package runtime of the standard library
// that schedules goroutines or shows the stack, for programs that stdbg
// checks: Gosched, under a check (sthread.Check, or stdbg find) a
// scheduling point where any other goroutine may run; Caller and Callers,
// which leave stdbg's own frames out of the stack the program sees, and
// Stack, which leaves them out of the traceback it writes. stdbg's
// instrumentation of plain Go (package goinstr) rewrites runtime.Gosched,
// runtime.Caller, runtime.Callers and runtime.Stack into this package's;
// the rest of package runtime is the standard library's.
package runtime

import (
	"runtime"

	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// Gosched yields the processor, like runtime.Gosched: under a check it is a
// scheduling point (sthread.Yield), outside one it is runtime.Gosched.
//
//go:norace
func Gosched() { rt.Yield() }

// Caller is runtime.Caller: the program counter, file and line of the
// frame skip frames up the calling goroutine's stack (0: Caller's caller),
// and whether there is one. The frames of stdbg's runtime are not counted,
// and below the function of a test the stack goes on as package testing
// called it: what testify's "Error Trace" and a logger's caller name is
// what they name under go test.
//
//go:noinline
//go:norace
func Caller(skip int) (pc uintptr, file string, line int, ok bool) { return rt.Caller(skip) }

// Callers is runtime.Callers: it fills pc with the return addresses of the
// calling goroutine's frames, the first skip left out (0 is the frame of
// runtime.Callers, 1 Callers' caller), and returns how many it wrote,
// leaving out the frames of stdbg's runtime as Caller does. skip counts
// return addresses, not the functions inlined at one.
//
//go:noinline
//go:norace
func Callers(skip int, pc []uintptr) int { return rt.Callers(skip, pc) }

// Stack is runtime.Stack: it writes into buf the traceback of the calling
// goroutine, and with all those of every other goroutine after it, and
// returns how many bytes it wrote (at most len(buf): the rest is cut). The
// frames of stdbg's runtime are left out, and of every goroutine's, the
// goroutines of stdbg's own; a goroutine of the program ends with the line
// that names its go statement, as in Go (when stdbg's runtime knows it:
// of the calling goroutine always).
//
//go:norace
func Stack(buf []byte, all bool) int {
	full := make([]byte, max(len(buf), 4096))
	for {
		n := runtime.Stack(full, all)
		if n < len(full) {
			full = full[:n]
			break
		}
		full = make([]byte, 2*len(full))
	}
	return copy(buf, rt.UserStack(full, nil))
}
