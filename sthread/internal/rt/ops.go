package rt

import (
	"fmt"
	"runtime"
	"strings"
	"unsafe"

	"github.com/stdbg/stdbg/syncmodel"
	"github.com/stdbg/stdbg/wire"
)

// The operations that several of sthread's packages share.

// Go runs f in a new goroutine, like the statement go f(). Under a check
// the goroutine is a checked thread, numbered in creation order; it runs up
// to its first scheduling point as part of the step that creates it.
// Outside a check (or from a goroutine outside it) it is a goroutine of its
// own, which the runtime keeps a record of while it lives (see
// outside.go).
//
//go:norace
func Go(f func()) {
	if hooked.Load() {
		if th, ok := EnterFree(); ok {
			th.Spawn(f, f)
			return
		}
	}
	goOutside(f)
}

// Yield is a scheduling point where any other goroutine may run; outside a
// check it calls runtime.Gosched.
//
//go:norace
func Yield() {
	if hooked.Load() {
		if th, ok := EnterFree(); ok {
			th.Point(syncmodel.Op{Kind: syncmodel.Yield, API: syncmodel.APIGoYield})
			return
		}
	}
	runtime.Gosched()
}

// MemPoint is the scheduling point of an access, k (a read or a write)
// reported as api, to the n bytes at p, under a check: two such accesses
// to the same bytes are dependent unless both read. Outside a check it does
// nothing.
//
//go:norace
func MemPoint(k syncmodel.Kind, api syncmodel.API, p unsafe.Pointer, n uintptr) {
	if th, ok := EnterFree(); ok {
		th.spinMem(p)
		th.Point(syncmodel.Op{Kind: k, API: api, Obj: uint64(uintptr(p)), Arg: int64(n)})
	}
}

// ShowAs makes reports show the calling checked goroutine as running f:
// its return is shown at f's first line (the body of a test function,
// which the checked function wraps). It must be called before the
// goroutine's first scheduling point; outside a check it does nothing.
//
//go:norace
func ShowAs(f func()) {
	if th, ok := Current(); ok {
		th.fn = funcPC(f)
	}
}

// Skipping records that the checked test, running in the calling thread,
// skipped itself (t.Skip): its runtime.Goexit ends the execution as a
// return does.
//
//go:norace
func Skipping() {
	if th, ok := Current(); ok && th.tid == 1 {
		th.ex.skipped = true
	}
}

// Logging reports whether a log line of a test goes to the test: always
// outside a check, only when replaying a schedule under it.
//
//go:norace
func Logging() bool {
	if !hooked.Load() {
		return true
	}
	r := checking.Load()
	return r == nil || r.cfg.Logs
}

// LateTestCall reports the misuse of calling the method of test t from a
// goroutine of the checked function once that function returned (go test
// panics when that happens in a real run).
//
//go:norace
func LateTestCall(t interface{ Name() string }, method string) {
	if !hooked.Load() {
		return
	}
	th, ok := EnterFree()
	if !ok || th.tid == 1 || !th.ex.over {
		return
	}
	what := "Log"
	switch {
	case strings.HasPrefix(method, "Error"), strings.HasPrefix(method, "Fail"), strings.HasPrefix(method, "Fatal"):
		what = "Fail"
	case strings.HasPrefix(method, "Skip"):
		what = "Skip"
	}
	th.failWith(wire.FailMisuse, fmt.Sprintf("t.%s called by goroutine %d after %s returned: go test panics (%s in goroutine after %s has completed)",
		method, th.tid, t.Name(), what, t.Name()), "t."+method)
}
