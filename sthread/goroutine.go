package sthread

import (
	"fmt"
	"reflect"
	"time"

	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/sthread/internal/rt"
	stime "github.com/stdbg/stdbg/sthread/time"
)

// Go runs f in a new goroutine, like the statement go f(). Under Check the
// goroutine is a checked thread, numbered in creation order; it runs up to
// its first sthread call as part of the step that creates it.
//
//go:norace
func Go(f func()) { rt.Go(f) }

// Yield is a scheduling point: under Check, any other goroutine may run
// here. Put one in every loop that waits for another goroutine by polling
// shared memory, or the loop is a transition that never ends. Outside Check
// it calls runtime.Gosched.
//
//go:norace
func Yield() { rt.Yield() }

// Sleep pauses the goroutine for at least d, like time.Sleep: it is
// Sleep of package sthread/time. Under Check it waits on the execution's
// virtual clock, which moves only when a sleeping goroutine or a timer
// wakes: a scheduling point that lets every other goroutine run meanwhile,
// after which the clock has moved by d, without waiting for real time.
//
//go:norace
func Sleep(d time.Duration) { stime.Sleep(d) }

// Choose returns a value in 0..n-1. Under Check the search tries every
// value, in different executions; outside Check it returns 0. It panics if
// n < 1.
//
//go:norace
func Choose(n int) int {
	if n < 1 {
		panic(fmt.Sprintf("sthread.Choose(%d): n must be at least 1", n))
	}
	if rt.Hooked() {
		if th, ok := rt.EnterFree(); ok {
			return int(th.Point(syncmodel.Op{Kind: syncmodel.Choose, API: syncmodel.APIGoChoose, Arg: int64(n)}))
		}
	}
	return 0
}

// Assert checks a property of the program. Under Check a false cond ends
// the execution and is reported as an assertion failure with msg, the
// schedule and the trace; outside Check it panics with msg.
//
//go:norace
func Assert(cond bool, msg string) {
	if cond {
		return
	}
	if rt.Hooked() {
		if th, ok := rt.EnterFree(); ok {
			th.FailUser(msg)
		}
	}
	panic("sthread: assertion failed: " + msg)
}

// Read is a scheduling point that names the shared memory at p (a pointer)
// about to be read: under Check, other goroutines may run before the read,
// and the trace shows it. Outside Check it does nothing. Under Check it
// panics if p is not a non-nil pointer.
//
//go:norace
func Read(p any) {
	if rt.Hooked() {
		memAccess(syncmodel.Read, syncmodel.APIGoRead, p)
	}
}

// Write is Read for memory about to be written.
//
//go:norace
func Write(p any) {
	if rt.Hooked() {
		memAccess(syncmodel.Write, syncmodel.APIGoWrite, p)
	}
}

//go:norace
func memAccess(k syncmodel.Kind, api syncmodel.API, p any) {
	th, ok := rt.EnterFree()
	if !ok {
		return
	}
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		panic(fmt.Sprintf("sthread.%s: want a non-nil pointer, got %T", map[syncmodel.Kind]string{syncmodel.Read: "Read", syncmodel.Write: "Write"}[k], p))
	}
	th.Point(syncmodel.Op{Kind: k, API: api, Obj: uint64(v.Pointer()), Arg: int64(v.Type().Elem().Size())})
}
