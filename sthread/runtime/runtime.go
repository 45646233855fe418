// Package runtime is the part of package runtime of the standard library
// that schedules goroutines, for programs that stdbg checks: Gosched, under
// a check (sthread.Check, or stdbg find) a scheduling point where any other
// goroutine may run. stdbg's instrumentation of plain Go (package goinstr)
// rewrites runtime.Gosched into this package's; the rest of package runtime
// is the standard library's.
package runtime

import "github.com/stdbg/stdbg/sthread/internal/rt"

// Gosched yields the processor, like runtime.Gosched: under a check it is a
// scheduling point (sthread.Yield), outside one it is runtime.Gosched.
//
//go:norace
func Gosched() { rt.Yield() }
