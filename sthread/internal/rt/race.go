package rt

import (
	"sync/atomic"
	"unsafe"

	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/model/wire"
)

// Data races. In a build with the race detector (go build -race), the
// hand-overs between checked goroutines (channels and atomics of the
// runtime) would order every access of one transition before those of the
// next: the detector would see no race at all. So sthread hides them — a
// goroutine ignores synchronisation events (runtime.RaceDisable) from the
// moment it enters a scheduling point until it returns to the program,
// and sthread's own code is not instrumented (//go:norace) — and tells the
// detector instead what the program's operations synchronise: every
// operation on an object acquires and releases that object (a conservative
// order: operations on one mutex, channel or wait group are totally
// ordered), and a go statement releases to the goroutine it starts. Two
// accesses of the program in different goroutines that nothing of that
// orders are then reported by the detector, in whatever schedule the
// search explores.
//
// The runtime's own state is invisible to the detector, as a rule: the
// state the checked goroutines share is touched by code the detector does
// not see (//go:norace, copies by hand), or by functions whose names start
// with quiet (the generators of rand.go, the formatting of a panic's
// value with package fmt, whose printers the program shares), which the
// detector's suppressions that stdbg passes every target it starts
// (rtnames.RaceSuppressions) leave out of its reports, with the search
// that runs inside the target and the scheduler's side (Runner). A report
// is then always the program's, and package testing, which fails a test
// during which the detector reported a race, fails none for stdbg's.
//
// This is done under stdbg find only (see raceHide). There the detector's
// report is caught: stdbg has the detector write its reports to a file
// that sthread reads (see racelog.go), and the transition in which a
// report appeared ends the execution with a data-race failure carrying the
// report, with both stacks.

// raceHide turns the hiding on: in a process started by stdbg find, which
// runs one execution and nothing else. In process (Check, Explore) the
// checker shares the process with the program, and the detector sees the
// hand-overs as they are, as it always did.
var raceHide bool

// HideRaces hides the runtime's hand-overs from the race detector, in a
// race build, and catches its reports in the file stdbg has it write them
// to (see racelog.go): for a process that stdbg find started to search or run
// executions in, which checks and does nothing else. Calls after the first
// do nothing.
//
//go:norace
func HideRaces() {
	if raceOn && !raceHide {
		raceHide = true
		openRaceLog()
	}
}

// raceVar returns the synchronisation variable that stands for the object
// or event key in execution ex.
//
//go:norace
func (ex *Execution) raceVar(key uint64) unsafe.Pointer {
	if v := ex.raceVars.get(key); v != nil {
		return v
	}
	v := unsafe.Pointer(new(uint64))
	ex.raceVars.put(key, v, nil)
	return v
}

// raceSync tells the detector what op, just performed by the calling
// goroutine with result code, synchronises. The goroutine is back in the
// program's code (synchronisation events enabled).
//
// Channel operations follow Go's memory model where an edge the program
// does not have would hide a race: a close only releases, a receive that
// found the channel closed only acquires, a select that ran its default
// case synchronises nothing, and a select synchronises through the case
// that proceeded only. A send or receive that exchanged a value acquires
// and releases its channel (as an unbuffered exchange does both ways; for
// a buffered channel an order the program has only with a lag).
//
// An operation that parked has not happened yet, but what its goroutine
// did before it is what the partner that completes it synchronises with:
// the goroutine releases it into a variable of its own (racePark),
// which a receive that takes its value acquires, and so does a send that
// hands its value to it through an unbuffered channel (the receive is
// synchronised before the send completes). A receive that frees a slot of
// a full buffer moves the value of the oldest parked sender into it: the
// receive that later takes that value acquires the sender's variable.
// Without these edges the detector reported a race between a write of a
// goroutine before its send and a read of the receiver after its receive
// whenever the sender parked first.
//
// Other operations acquire and release their object.
//
//go:norace
func (ex *Execution) raceSync(th *Thread, op syncmodel.Op, code int64) {
	switch op.Kind {
	case syncmodel.Read, syncmodel.Write:
		return
	case syncmodel.ChanClose:
		if op.Obj != 0 && syncmodel.DecodeChanResult(code).Via != syncmodel.ViaPanic {
			// Go's close writes the channel, then releases it (a close
			// that panics does neither).
			v := ex.raceVar(op.Obj)
			closeWritesChannel(v)
			raceReleaseMerge(v)
		}
		return
	case syncmodel.ChanSend, syncmodel.ChanRecv, syncmodel.Select, syncmodel.ChanWake:
		ex.raceChan(th, op, syncmodel.DecodeChanResult(code))
		return
	}
	ex.raceSyncObj(op.Obj)
	if op.Kind == syncmodel.GoCondWait || op.Kind == syncmodel.GoCondWake {
		ex.raceSyncObj(op.Obj2) // the mutex a Go condition wait releases or retakes
	}
}

// raceChan tells the detector what channel operation op of thread th,
// with result r, synchronises (see raceSync).
//
//go:norace
func (ex *Execution) raceChan(th *Thread, op syncmodel.Op, r syncmodel.ChanResult) {
	if op.Kind != syncmodel.ChanWake {
		ex.raceSendReads(op, r)
	}
	switch r.Via {
	case syncmodel.ViaDefault, syncmodel.ViaPanic:
		// A send that panics on a closed channel synchronises nothing.
		return
	case syncmodel.ViaParked:
		raceReleaseMerge(ex.racePark(th.tid))
		return
	}
	ch, capacity, ok := chanOf(op, r)
	if !ok {
		return
	}
	send := isSend(op, r)
	switch {
	case r.Via == syncmodel.ViaPartner && (!send || capacity == 0):
		// The value came from a parked sender, or went to a parked
		// receiver of an unbuffered channel.
		raceAcquire(ex.raceParked(r.Partner))
	case r.Via == syncmodel.ViaBuffer && send:
		ex.raceBuffer(ch).push(nil)
	case r.Via == syncmodel.ViaBuffer:
		q := ex.raceBuffer(ch)
		if v := q.pop(); v != nil {
			raceAcquire(v) // the value a receive moved from a parked sender
		}
		if r.Partner != 0 {
			q.push(ex.raceParked(r.Partner))
		}
	}
	v := ex.raceVar(ch)
	raceAcquire(v)
	if r.Via != syncmodel.ViaClosed && (r.Via != syncmodel.ViaWoken || r.OK || send) {
		raceReleaseMerge(v)
	}
}

// raceSendReads tells the detector of the reads of their channels that
// Go's sends make before anything else (chansend reads the channel, and a
// select every send case it polls: all of them when none is ready), which
// a close writes: a send and a close that nothing orders race, as in Go,
// whether the send went first or panicked. Of a select that proceeded,
// only the case that did is read (Go polls in a random order).
//
//go:norace
func (ex *Execution) raceSendReads(op syncmodel.Op, r syncmodel.ChanResult) {
	switch op.Kind {
	case syncmodel.ChanSend:
		if op.Obj != 0 {
			sendReadsChannel(ex.raceVar(op.Obj))
		}
	case syncmodel.Select:
		polledAll := r.Via == syncmodel.ViaDefault || r.Via == syncmodel.ViaParked
		for k, c := range op.Cases {
			if c.Send && c.Chan != 0 && (polledAll || k == r.Case) {
				sendReadsChannel(ex.raceVar(c.Chan))
			}
		}
	}
}

// sendReadsChannel and closeWritesChannel are the accesses of a send and a
// close to the channel whose detector's variable is v. Reports name them
// (the program's frame that made the operation is not on the detector's
// stack: sthread's functions between are not instrumented); the report's
// place is the operation's, where the execution's trace shows it.
//
//go:noinline
//go:norace
func sendReadsChannel(v unsafe.Pointer) { raceRead(v) }

//go:noinline
//go:norace
func closeWritesChannel(v unsafe.Pointer) { raceWrite(v) }

// The keys, in an execution's raceVars, of the variable of thread tid's
// latest park on channels, and of the raceBuffer of channel ch. (Not Go
// maps: the runtime reports the accesses to a map, even from sthread's
// code, and each report fails the test under way.)
//
//go:norace
func raceParkKey(tid int) uint64 { return 1<<61 | uint64(tid) }

//go:norace
func raceBufferKey(ch uint64) uint64 { return 1<<60 | ch }

// racePark returns a fresh variable for the park of thread tid under way,
// for the thread to release into.
//
//go:norace
func (ex *Execution) racePark(tid int) unsafe.Pointer {
	v := unsafe.Pointer(new(uint64))
	ex.raceVars.put(raceParkKey(tid), v, nil)
	return v
}

// raceParked returns the variable of thread tid's latest park (a fresh one,
// which orders nothing, if it never parked).
//
//go:norace
func (ex *Execution) raceParked(tid int) unsafe.Pointer {
	if v := ex.raceVars.get(raceParkKey(tid)); v != nil {
		return v
	}
	return ex.racePark(tid)
}

// raceBuffer says where the values in a channel's buffer came from: one
// entry per value, oldest first, the variable of the parked sender whose
// value a receive moved into the buffer, or nil for a value a running send
// put there (the channel's variable orders that one).
type raceBuffer struct{ vars []unsafe.Pointer }

// raceBuffer returns the raceBuffer of channel ch in ex.
//
//go:norace
func (ex *Execution) raceBuffer(ch uint64) *raceBuffer {
	if p := ex.raceVars.get(raceBufferKey(ch)); p != nil {
		return (*raceBuffer)(p)
	}
	q := &raceBuffer{}
	ex.raceVars.put(raceBufferKey(ch), unsafe.Pointer(q), q)
	return q
}

//go:norace
func (q *raceBuffer) push(v unsafe.Pointer) { q.vars = append(q.vars, v) }

//go:norace
func (q *raceBuffer) pop() unsafe.Pointer {
	if len(q.vars) == 0 {
		return nil // cannot happen: the model and the buffer agree
	}
	v := q.vars[0]
	q.vars = q.vars[1:]
	return v
}

// raceSyncObj acquires and releases the detector's variable of object obj
// (none for 0).
//
//go:norace
func (ex *Execution) raceSyncObj(obj uint64) {
	if obj != 0 {
		v := ex.raceVar(obj)
		raceAcquire(v)
		raceReleaseMerge(v)
	}
}

// isSend reports whether the channel operation op, with result r, was a
// send (which a close does not end with OK false as it ends a receive).
//
//go:norace
func isSend(op syncmodel.Op, r syncmodel.ChanResult) bool {
	if op.Cases != nil {
		return r.Case >= 0 && r.Case < len(op.Cases) && op.Cases[r.Case].Send
	}
	return op.Kind == syncmodel.ChanSend
}

// quietLoad and quietStore access a word that sthread shares between
// checked goroutines in their own code, before a scheduling point hides
// their synchronisation (raceEnter): atomically, except in a race build
// that hides sthread's hand-overs, where the detector would take the
// atomic for a synchronisation of the program and order the goroutines,
// hiding the races between them. Checked goroutines run one at a time.
//
//go:norace
func quietLoad(p *atomic.Uint64) uint64 {
	if raceOn && raceHide {
		return *(*uint64)(unsafe.Pointer(p))
	}
	return p.Load()
}

//go:norace
func quietStore(p *atomic.Uint64, v uint64) {
	if raceOn && raceHide {
		*(*uint64)(unsafe.Pointer(p)) = v
		return
	}
	p.Store(v)
}

// raceEnter is the start of a scheduling point of th in a race build: the
// goroutine stops reporting synchronisation events, and a race report that
// appeared during the transition ends the execution.
//
//go:norace
func (th *Thread) raceEnter() {
	if th.bubble != 0 {
		th.raceBubble()
	}
	raceDisable()
	th.raceOff = true
	if raceReports == nil {
		return
	}
	if rep := raceReports.takeRace(); rep != "" {
		th.ex.fail(th, raceFailure(th, rep), nil)
		th.park()
		panic(abortSignal{})
	}
}

// racePending returns the failure of the data race that the detector
// reported in the transition of th under way, if it reported one. A
// failure the transition then ran into (a test that found itself failed:
// the testing package fails a test in which the detector reported a race)
// gives way to it: the race came first, and is reported with both stacks.
//
//go:norace
func (th *Thread) racePending() (wire.Failure, bool) {
	if raceReports == nil {
		return wire.Failure{}, false
	}
	rep := raceReports.takeRace()
	if rep == "" {
		return wire.Failure{}, false
	}
	return raceFailure(th, rep), true
}

// raceStart is released by the scheduler when a check starts and acquired
// by every thread: what the process did before the check happens before
// the threads.
var raceStart uint64

// raceThreadKey is the key of the variable through which a go statement
// releases to the goroutine it starts.
//
//go:norace
func raceThreadKey(tid int) uint64 { return 1<<62 | uint64(tid) }

// chanOf returns the channel that a channel operation or select op used,
// as its result r tells (the case taken), with its capacity; ok is false
// when it used none (a case out of range, a nil channel).
func chanOf(op syncmodel.Op, r syncmodel.ChanResult) (ch uint64, capacity int64, ok bool) {
	ch, capacity = op.Obj, op.Arg
	if op.Cases != nil {
		if r.Case < 0 || r.Case >= len(op.Cases) {
			return 0, 0, false
		}
		ch, capacity = op.Cases[r.Case].Chan, op.Cases[r.Case].Cap
	}
	return ch, capacity, ch != 0
}
