package rt

import (
	"fmt"
	"reflect"
	"runtime"
	"strconv"
	"strings"

	"github.com/stdbg/stdbg/internal/rtnames"
	"github.com/stdbg/stdbg/internal/symbolize"
	"github.com/stdbg/stdbg/model/wire"
)

// rtPrefix is the prefix of the names of this package's functions.
const rtPrefix = rtnames.Package + "/internal/rt."

// trampolineName is the name of the function that runs every checked
// goroutine's function.
const trampolineName = rtPrefix + "(*Thread).run"

// funcPC returns the entry of f's code.
//
//go:norace
func funcPC(f func()) uintptr { return reflect.ValueOf(f).Pointer() }

// FailUser reports a failed property of the program (a failed Assert) at
// the user's call of the sthread function under way, and waits to be
// unwound: it does not return.
//
//go:norace
func (th *Thread) FailUser(msg string) {
	th.failWith(wire.FailUser, msg, "")
}

// failWith reports a failure of kind at the caller's place; call names
// the misused call (FailMisuse).
//
//go:norace
func (th *Thread) failWith(kind wire.FailureKind, msg, call string) {
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

// fail records a failure of thread th; the execution is over. pcs, if not
// nil, are the frames of the failure.
//
//go:norace
func (ex *Execution) fail(th *Thread, f wire.Failure, pcs []uintptr) {
	if th.status() != stRunning {
		return
	}
	if raceOn && raceHide && f.Kind != wire.FailRace {
		if race, ok := th.racePending(); ok {
			f, pcs = race, nil
		}
	}
	if pcs != nil {
		f.Frames = ex.record(pcs)
	}
	ex.failed = true
	ex.events = append(ex.events, f)
}

// panicFailure describes the panic p of thread th, with the stack from the
// panicking frame to the goroutine's function.
//
//go:norace
func panicFailure(th *Thread, p any) wire.Failure {
	var buf [failureCap]uintptr
	n := runtime.Callers(1, buf[:])
	pcs := buf[:n]
	frames := runtime.CallersFrames(pcs)
	var kept []uint64
	var resolved []symbolize.Frame
	seenPanic := false
	for {
		fr, more := frames.Next()
		switch {
		case !seenPanic:
			seenPanic = fr.Function == "runtime.gopanic"
		case len(kept) == 0 && (strings.HasPrefix(fr.Function, "runtime.") || isSthreadFile(fr.File)):
			// panicmem, sigpanic, goPanicIndex, ...: the runtime raising
			// it; sthread's functions raising Go's panic of an operation
			// (a send on a closed channel).
		case fr.Function == trampolineName,
			fr.Function == "runtime.goexit":
			more = false
		case stdbgFrame(fr.Function, fr.File):
			// stdbg's frames below the program's (lang.CheckTest's,
			// Once.Do's between a callback and its caller).
		default:
			pc := uint64(fr.PC + 1)
			kept = append(kept, pc)
			resolved = append(resolved, symbolize.Frame{PC: pc, Func: shortName(fr.Function), File: fr.File, Line: fr.Line})
		}
		if !more {
			break
		}
	}
	for _, f := range resolved {
		th.ex.r.known.Store(f.PC, f)
	}
	msg := panicMessage(p)
	if _, ok := p.(runtime.Error); ok && th.panicObj != 0 && p == th.panicVal {
		// Go's panic of a channel operation: the channel, which the
		// report names.
		msg += " 0x" + strconv.FormatUint(th.panicObj, 16)
	}
	f := wire.Failure{Tid: th.tid, Kind: wire.FailPanic, Message: msg, Frames: kept}
	if len(resolved) > 0 {
		f.File, f.Line, f.Func = resolved[0].File, resolved[0].Line, resolved[0].Func
	}
	return f
}

// trimStack drops the frames of the trampoline and below, and every frame
// of stdbg's runtime, from the return addresses pcs of a checked
// goroutine.
//
//go:norace
func trimStack(pcs []uintptr) []uintptr {
	for i, pc := range pcs {
		if f := runtime.FuncForPC(pc - 1); f != nil {
			if outer := runtime.FuncForPC(f.Entry()); outer != nil && outer.Name() == trampolineName {
				pcs = pcs[:i]
				break
			}
		}
	}
	// No frame of stdbg's is the program's: lang.CheckTest's, below a
	// test's body, nor those between a callback and its caller (Once.Do).
	kept := pcs[:0]
	for _, pc := range pcs {
		if !inSthread(pc) {
			kept = append(kept, pc)
		}
	}
	return kept
}

// panicMessage renders a panic value as Go prints it.
//
//go:norace
func panicMessage(p any) string {
	switch v := p.(type) {
	case error:
		return v.Error()
	case fmt.Stringer:
		return v.String()
	case string:
		return v
	}
	return quietSprint(p)
}

// quietSprint formats p with package fmt, whose printers it shares with
// the program through a pool: in the runtime's name (see
// rtnames.RaceSuppressions), since the goroutine that calls it hides its
// synchronisation from the race detector as it ends.
//
//go:noinline
func quietSprint(p any) string { return fmt.Sprint(p) }
