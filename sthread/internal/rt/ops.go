package rt

import (
	"runtime"
	"unsafe"

	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/model/wire"
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

// TestFailed reports, as an assertion failure shown at the first line of
// the checked test's function, that the test was marked failed by a call
// stdbg did not see (a t.Error of code it does not instrument, such as an
// assertion library's). The testing package also fails a test in which
// the race detector reported a race: that race is reported instead, with
// its report. It does nothing outside a check.
//
//go:norace
func TestFailed(msg string) {
	th, ok := Current()
	if !ok {
		return
	}
	if raceOn && raceHide {
		if f, ok := th.racePending(); ok {
			th.ex.fail(th, f, nil)
			th.park()
			panic(abortSignal{})
		}
		if raceErrors() > th.ex.raceReports {
			msg = "the race detector reported a data race in this execution, and package testing failed the test for it, " +
				"but stdbg did not find the report on the program's standard error: replay the schedule to see it"
		}
	}
	f := wire.Failure{Tid: th.tid, Kind: wire.FailUser, Message: msg}
	pcs := []uintptr{funcLine(th.fn)}
	fr := userFrame(pcs[0])
	f.File, f.Line, f.Func = fr.File, fr.Line, shortName(fr.Function)
	th.ex.fail(th, f, pcs)
	th.park()
	panic(abortSignal{})
}
