package sthread

import (
	"fmt"
	"reflect"
	"runtime"
	"time"

	"github.com/stdbg/stdbg/syncmodel"
	"github.com/stdbg/stdbg/wire"
)

// Go runs f in a new goroutine, like the statement go f(). Under Check the
// goroutine is a checked thread, numbered in creation order; it runs up to
// its first sthread call as part of the step that creates it.
//
//go:norace
func Go(f func()) {
	if hooked.Load() {
		if th, ok := enterFree(); ok {
			th.spawnAs(f, f)
			return
		}
	}
	go f()
}

// Yield is a scheduling point: under Check, any other goroutine may run
// here. Put one in every loop that waits for another goroutine by polling
// shared memory, or the loop is a transition that never ends. Outside Check
// it calls runtime.Gosched.
//
//go:norace
func Yield() {
	if hooked.Load() {
		if th, ok := enterFree(); ok {
			th.point(syncmodel.Op{Kind: syncmodel.Yield, API: syncmodel.APIGoYield})
			return
		}
	}
	runtime.Gosched()
}

// Sleep pauses the goroutine for d. Under Check it does not sleep: it is a
// scheduling point, and time does not pass.
//
//go:norace
func Sleep(d time.Duration) {
	if hooked.Load() {
		if th, ok := enterFree(); ok {
			th.point(syncmodel.Op{Kind: syncmodel.Sleep, API: syncmodel.APIGoSleep, Arg: int64(d)})
			return
		}
	}
	time.Sleep(d)
}

// Choose returns a value in 0..n-1. Under Check the search tries every
// value, in different executions; outside Check it returns 0. It panics if
// n < 1.
//
//go:norace
func Choose(n int) int {
	if n < 1 {
		panic(fmt.Sprintf("sthread.Choose(%d): n must be at least 1", n))
	}
	if hooked.Load() {
		if th, ok := enterFree(); ok {
			return int(th.point(syncmodel.Op{Kind: syncmodel.Choose, API: syncmodel.APIGoChoose, Arg: int64(n)}))
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
	if hooked.Load() {
		if th, ok := enterFree(); ok {
			th.failUser(msg)
		}
	}
	panic("sthread: assertion failed: " + msg)
}

// failUser reports a failed property of the program at the user's call of
// the sthread function under way, and waits to be unwound.
//
//go:norace
func (th *thread) failUser(msg string) {
	th.failWith(wire.FailUser, msg, "")
}

// failWith reports a failure of kind at the caller's place; call names
// the misused call (FailMisuse).
//
//go:norace
func (th *thread) failWith(kind wire.FailureKind, msg, call string) {
	var buf [failureCap]uintptr
	pcs := buf[:callers(buf[:])]
	for len(pcs) > 0 && inSthread(pcs[0]) {
		pcs = pcs[1:]
	}
	pcs = trimStack(pcs)
	f := wire.Failure{Tid: th.tid, Kind: kind, Message: msg}
	if len(pcs) > 0 {
		fr := userFrame(pcs[0])
		f.File, f.Line, f.Func = fr.File, fr.Line, shortName(fr.Function)
	}
	if call != "" {
		f.Func = call
	}
	th.ex.fail(th, f, pcs)
	th.park()
	panic(abortSignal{})
}

// Read is a scheduling point that names the shared memory at p (a pointer)
// about to be read: under Check, other goroutines may run before the read,
// and the trace shows it. Outside Check it does nothing. Under Check it
// panics if p is not a non-nil pointer.
//
//go:norace
func Read(p any) {
	if hooked.Load() {
		memAccess(syncmodel.Read, syncmodel.APIGoRead, p)
	}
}

// Write is Read for memory about to be written.
//
//go:norace
func Write(p any) {
	if hooked.Load() {
		memAccess(syncmodel.Write, syncmodel.APIGoWrite, p)
	}
}

//go:norace
func memAccess(k syncmodel.Kind, api syncmodel.API, p any) {
	th, ok := enterFree()
	if !ok {
		return
	}
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		panic(fmt.Sprintf("sthread.%s: want a non-nil pointer, got %T", map[syncmodel.Kind]string{syncmodel.Read: "Read", syncmodel.Write: "Write"}[k], p))
	}
	th.point(syncmodel.Op{Kind: k, API: api, Obj: uint64(v.Pointer()), Arg: int64(v.Type().Elem().Size())})
}
