package syncmodel

// What the status of a pending operation depends on, for a search that
// keeps the status of every thread from one scheduling point to the next
// and looks again only at the threads a step may have changed, instead of
// asking the world about every thread after every step.
//
// The status of thread t's pending operation (what Inspect tells: whether
// it is enabled, its choices and its annotation) changes only
//
//   - when t reports a new pending operation, runs, or starts or ends
//     waiting for a write (Await);
//   - when another thread runs or reports an operation on one of the
//     objects the operation uses (StatusDeps' objects): a lock waits for
//     the unlock of its mutex, a condition wait's second half for a
//     signal and its mutex, a join of thread u for u's exit and for
//     another join or a detach of u (a misuse, which is enabled);
//   - with any step at all for the kinds StatusDeps calls global: a
//     TimerWait (the rules of time look at every thread), the operations
//     of a synctest bubble (durably blocked is a property of all its
//     goroutines), the operations of channels (their annotation names
//     partners that a step on another channel may take, through a parked
//     select) and the kinds whose annotation depends on the state;
//   - when the process exits (nothing is enabled after an Exit).
//
// StepTouches says what a step or a report touches in these terms.

// StatusDeps appends to objs the synchronization objects whose operations
// (run by another thread, or reported as its pending operation) may change
// the status of a pending operation op, and returns the thread whose
// creation, exit, join or detach may change it (0: none). global reports
// that a step of any thread may change it: the caller must look at it
// after every step.
func StatusDeps(objs []uint64, op *Op) (_ []uint64, thread int, global bool) {
	if !op.Kind.Valid() {
		return objs, 0, true
	}
	if statusGlobal[op.Kind] {
		return objs, 0, true
	}
	switch kindTable[op.Kind].class {
	case classSync:
		for i, n := 0, numObjects(op); i < n; i++ {
			objs = append(objs, objectAt(op, i))
		}
	case classThread:
		if op.Kind == ThreadJoin || op.Kind == ThreadDetach {
			if op.Arg > 0 && op.Arg <= maxThreadKey {
				thread = int(op.Arg)
			} else {
				// A join of no thread that can exist: a misuse, decided
				// by the number of threads.
				return objs, 0, true
			}
		}
	case classMem, classSched, classStart, classLocal:
		// Enabled unless it waits for a write, its choices its own.
	default:
		return objs, 0, true
	}
	return objs, thread, false
}

// statusGlobal lists the kinds whose status any step may change (see
// StatusDeps).
var statusGlobal = func() (g [NumKinds]bool) {
	for k := range g {
		in := &kindTable[k]
		switch in.prim.(type) {
		case *chanPrim, *timePrim, *bubblePrim:
			g[k] = true
		}
		g[k] = g[k] || in.stateEff || Kind(k) == TimerWait
	}
	return g
}()

// maxThreadKey bounds the thread ids StatusDeps names: a join of a larger
// id is global (it is a misuse until that many threads exist).
const maxThreadKey = 1 << 24

// StepTouches appends to objs the objects through which thread tid's
// operation op, run or reported as its new pending operation, may change
// the status of other threads' pending operations (see StatusDeps), and
// returns the thread it may change it through (0: none): the objects it
// uses and the channels of the parked select it completes with
// (Effect.Links); for a thread's exit that thread, for a join or a detach
// the thread joined or detached. A ThreadCreate changes the status of
// what waits for the thread it creates, which its caller learns from the
// number of threads.
func StepTouches(objs []uint64, tid int, op *Op) (_ []uint64, thread int) {
	if !op.Kind.Valid() {
		return objs, 0
	}
	switch kindTable[op.Kind].class {
	case classSync:
		for i, n := 0, numObjects(op); i < n; i++ {
			objs = append(objs, objectAt(op, i))
		}
		objs = append(objs, op.Eff.Links...)
	case classThread:
		switch op.Kind {
		case ThreadExit:
			thread = tid
		case ThreadJoin, ThreadDetach:
			if op.Arg > 0 && op.Arg <= maxThreadKey {
				thread = int(op.Arg)
			}
		}
	}
	return objs, thread
}
