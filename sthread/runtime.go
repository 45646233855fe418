package sthread

import (
	"errors"
	"fmt"
	"math/rand"
	randv2 "math/rand/v2"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/stdbg/stdbg/checker"
	"github.com/stdbg/stdbg/symbolize"
	"github.com/stdbg/stdbg/syncmodel"
	"github.com/stdbg/stdbg/wire"
)

// This file is the in-process runtime: a checker.Runtime whose threads are
// goroutines of the test process.
//
// Handoff. Exactly one goroutine runs at a time: the scheduler (the
// goroutine running search.Explore, which calls Begin, Resume and End) or
// one checked thread. Each thread has its own wake channel; the scheduler
// has one too (runner.sched). A thread that reaches a scheduling point
// records its pending operation, hands control back (to the scheduler, or
// to the thread that created it while that one waits for its first
// scheduling point) and blocks on its wake channel until Resume sends on it.
//
// States. A thread is running, parked (blocked on its wake channel), done
// (its goroutine has ended) or stale (it ran past the transition timeout).
// Parking and going stale are compare-and-swaps from running, so that a
// thread that reaches its next scheduling point just as the scheduler gives
// up on it either parks (and the scheduler takes its report) or finds
// itself stale (and unwinds without touching the execution).
//
// Unwinding. End resumes every parked thread with its abort flag set: the
// sthread call it is parked in panics with abortSignal, which the thread's
// trampoline recovers, so that the goroutine's deferred calls run and its
// function ends before the next execution starts.
//
// Workers. A thread's goroutine outlives its execution: once the thread's
// function has ended, the goroutine waits on its wake channel to run the
// function of a thread of a later execution, which spares a goroutine
// creation and the growth of a fresh stack per thread and execution. The
// runner retires its idle workers when the Check ends. A stale goroutine cannot
// be stopped: its next sthread call panics with abortSignal, and until it
// ends sthread stays hooked so that it can find out.

// Thread states, in the low bits of thread.state (stateBits of them); the
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

// status returns the state of th.
//
//go:norace
func (th *thread) status() uint64 { return th.state.Load() & stateMask }

// running marks th as running in transition seq.
//
//go:norace
func (th *thread) running(seq uint64) { th.state.Store(seq<<stateBits | stRunning) }

// leave moves th from running to state to, and reports false if it was not
// running any more (it is stale).
//
//go:norace
func (th *thread) leave(to uint64) bool {
	w := th.state.Load()
	return w&stateMask == stRunning && th.state.CompareAndSwap(w, w&^stateMask|to)
}

// Frames captured: at a scheduling point (the user's call and, when a report
// is built, its callers), and for a failure.
const (
	framesCap   = 24
	failureCap  = 64
	reportDepth = 16
)

// genCounter numbers executions across all Checks of the process, so that
// an object registered in one execution is never taken as registered in
// another.
var genCounter atomic.Uint32

// runner runs the executions of one checked function: it implements
// checker.Runtime.
type runner struct {
	f       func()
	shown   uintptr       // the function where the checked function's return is shown
	depth   int           // frames recorded per scheduling point
	timeout time.Duration // transition timeout
	replay  bool          // running one given schedule: TB logs go to the test
	noWatch bool          // no transition watchdog (under a debugger)
	procs   int           // GOMAXPROCS before the Check
	sched   chan struct{} // the scheduler's handoff channel
	seq     atomic.Uint64 // odd while the scheduler waits for a transition
	alarm   atomic.Bool   // the watchdog made the running thread stale
	done    chan struct{} // closed when the Check ends
	ex      atomic.Pointer[execution]
	free    []*thread  // idle workers: threads of ended executions
	last    *execution // the last execution that ended
	begun   *execution // the last execution begun
	fatal   error      // the program cannot be checked: Begin fails
	state   bool       // report the program state with every hand-over (stateful search)

	mu      sync.Mutex // guards foreign
	foreign string     // a goroutine not started with Go touched the program's objects

	known sync.Map // uint64 pc -> symbolize.Frame resolved in its stack, for failures
}

//go:norace
func newRunner(f func(), cfg *config, depth int) *runner {
	shown := reflect.ValueOf(f).Pointer()
	if cfg.shown != nil {
		shown = reflect.ValueOf(cfg.shown).Pointer()
	}
	return &runner{
		f:       f,
		shown:   shown,
		depth:   depth,
		timeout: cfg.timeout,
		sched:   make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
}

// start hooks sthread to r, runs the process on one processor and starts
// the watchdog; stop undoes it. One goroutine runs at a time anyway, and on
// one processor a handoff does not wake an idle processor, a system call on
// the critical path of every transition: checking is about 1.5 times
// faster.
//
//go:norace
func (r *runner) start() {
	r.procs = runtime.GOMAXPROCS(1)
	if raceOn && raceHide {
		// What happened before the check happens before every thread;
		// the scheduler's hand-overs order nothing of the program.
		raceReleaseMerge(unsafe.Pointer(&raceStart))
		raceDisable()
	}
	regMu.Lock()
	checking.Store(r)
	rehook()
	regMu.Unlock()
	if !r.noWatch {
		go r.watch()
	}
}

//go:norace
func (r *runner) stop() {
	for _, th := range r.free {
		th.retire()
	}
	r.free = nil
	close(r.done)
	regMu.Lock()
	checking.Store(nil)
	rehook()
	regMu.Unlock()
	runtime.GOMAXPROCS(r.procs)
	if raceOn && raceHide {
		raceEnable()
	}
}

// watch raises an alarm when one transition (seq odd and unchanged) lasts
// longer than the timeout. It checks eight times per timeout. The alarm
// makes the running thread stale, if it is still running that transition,
// and wakes the scheduler in its place.
//
//go:norace
func (r *runner) watch() {
	tick := max(r.timeout/8, time.Millisecond)
	t := time.NewTicker(tick)
	defer t.Stop()
	var last uint64
	n := 0
	for {
		select {
		case <-r.done:
			return
		case <-t.C:
		}
		seq := r.seq.Load()
		if seq&1 == 0 || seq != last {
			last, n = seq, 0
			continue
		}
		if n++; n < 8 {
			continue
		}
		n = 0
		ex := r.ex.Load()
		if ex == nil {
			continue
		}
		th := ex.running.Load()
		if th == nil {
			continue
		}
		w := th.state.Load()
		if w>>stateBits == seq && w&stateMask == stRunning && th.state.CompareAndSwap(w, w&^stateMask|stStale) {
			r.alarm.Store(true)
			r.sched <- struct{}{}
		}
	}
}

// execution is one run of the checked function.
type execution struct {
	r       *runner
	gen     uint32
	threads []*thread // threads[i] is thread i+1
	running atomic.Pointer[thread]
	events  []any
	arena   []uint64 // frames of this execution's scheduling points
	objs    []object // registered objects; object i has id idBase+i+1
	failed  bool     // a failure was reported: nothing more runs
	over    bool     // the checked function's return was executed
	skipped bool     // the checked test skipped itself (t.Skip)
	stale   bool     // a thread of this execution went stale
	// stuck is where the goroutine of thread stuckTid was when its
	// transition timed out.
	stuck    []string
	stuckTid int

	// Stateful search (runner.state): the state and propositions the
	// program declared, and whether it marked progress in the transition.
	declared []declared
	progress bool

	// plain maps the real channels used in this execution (see plain.go)
	// to their state.
	plain table
	// now is the virtual clock (see vtime.go), in nanoseconds since Epoch.
	now int64
	// rand and rand2 are the execution's generators (see rand.go).
	rand  *rand.Rand
	rand2 *randv2.Rand
	// raceVars are the race detector's variables of the objects (see
	// race.go).
	raceVars table
	// raceEnd is released by each thread of the execution as it ends, and
	// racePrev, the previous execution's, acquired by each as it starts:
	// what one execution did happens before the next, in a process that
	// serves many (the checker's hand-overs, hidden from the race
	// detector, order nothing).
	raceEnd, racePrev *uint64
}

// thread is one checked goroutine of an execution.
type thread struct {
	ex    *execution
	tid   int
	fn    uintptr // entry of the goroutine's function, for reports
	g     atomic.Uintptr
	job   func() // the function the thread runs
	state atomic.Uint64
	abort atomic.Bool
	wake  chan struct{}
	back  *thread // the thread to hand control to when parking; nil: the scheduler
	code  int64   // result of the operation it is resumed to perform
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

	// Values exchanged through channels (see chan.go).
	sendVal any   // the value of a parked send
	selVals []any // the values of the send cases of a parked select
	recvVal any   // the value delivered to a parked receive
}

// Begin implements checker.Runtime: it starts the checked function as
// thread 1 and returns the events up to its first scheduling point.
//
//go:norace
func (r *runner) Begin() ([]any, error) {
	if r.fatal != nil {
		return nil, r.fatal
	}
	ex := r.newExecution()
	th := ex.newThread(1, r.f)
	th.fn = r.shown
	r.begun = ex
	r.ex.Store(ex)
	ex.running.Store(th)
	th.running(r.seq.Add(1))
	th.start()
	ok := r.await()
	r.seq.Add(1)
	return ex.collect(ok), nil
}

// Resume implements checker.Runtime.
//
//go:norace
func (r *runner) Resume(tid int, code int64) ([]any, error) {
	ex := r.ex.Load()
	if ex == nil || tid < 1 || tid > len(ex.threads) {
		return nil, fmt.Errorf("sthread: resume of unknown thread %d", tid)
	}
	th := ex.threads[tid-1]
	if th.status() != stParked {
		return nil, fmt.Errorf("sthread: resume of thread %d, which is not at a scheduling point", tid)
	}
	ex.events = ex.events[:0]
	th.code = code
	r.wakeUp(ex, th)
	ok := r.await()
	r.seq.Add(1)
	return ex.collect(ok), nil
}

// wakeUp lets parked thread th run, as the scheduler.
//
//go:norace
func (r *runner) wakeUp(ex *execution, th *thread) {
	th.back = nil
	th.running(r.seq.Add(1))
	ex.running.Store(th)
	th.wake <- struct{}{}
}

// End implements checker.Runtime: it unwinds every parked thread, one at a
// time, and waits for its goroutine to end.
//
//go:norace
func (r *runner) End(clean bool) {
	ex := r.ex.Load()
	if ex == nil {
		return
	}
	for _, th := range ex.threads {
		if th.status() != stParked {
			continue
		}
		th.abort.Store(true)
		r.wakeUp(ex, th)
		r.await()
		r.seq.Add(1)
	}
	ex.running.Store(nil)
	r.ex.Store(nil)
	r.last = ex
	for _, th := range ex.threads {
		switch {
		case th.status() != stDone:
		case ex.stale:
			// Its records may still be used by the stale goroutines.
			th.retire()
		default:
			r.free = append(r.free, th)
		}
	}
}

// await waits for the running thread to hand control back. It reports false
// when the transition timed out: the running thread is then stale.
//
//go:norace
func (r *runner) await() bool {
	<-r.sched
	if !r.alarm.Swap(false) {
		return true
	}
	ex := r.ex.Load()
	th := ex.running.Load()
	th.abort.Store(true)
	ex.stale = true
	regMu.Lock()
	stale = append(stale, th)
	rehook()
	regMu.Unlock()
	ex.timedOut(th)
	return false
}

//go:norace
func (r *runner) newExecution() *execution {
	ex := &execution{r: r, gen: genCounter.Add(1), raceEnd: new(uint64)}
	if ex.gen == 0 {
		ex.gen = genCounter.Add(1)
	}
	if r.last != nil {
		ex.racePrev = r.last.raceEnd
	}
	if l := r.last; l != nil && !l.stale {
		// Reuse the buffers of the previous execution, which nothing
		// refers to any more: the checker drops an execution when it
		// begins the next one.
		ex.events, ex.arena, ex.objs, ex.threads = l.events[:0], l.arena[:0], l.objs[:0], l.threads[:0]
		clear(l.threads[:cap(l.threads)])
		ex.plain = l.plain
		ex.plain.reset()
	}
	return ex
}

//go:norace
func (ex *execution) newThread(tid int, f func()) *thread {
	r := ex.r
	var th *thread
	if n := len(r.free); n > 0 {
		th = r.free[n-1]
		r.free = r.free[:n-1]
		th.reset()
	} else {
		th = &thread{wake: make(chan struct{}, 1)}
	}
	th.ex, th.tid, th.job = ex, tid, f
	th.fn = reflect.ValueOf(f).Pointer()
	ex.threads = append(ex.threads, th)
	return th
}

// reset clears a thread record of an ended execution for reuse.
//
//go:norace
func (th *thread) reset() {
	th.g.Store(0)
	th.state.Store(0)
	th.abort.Store(false)
	th.back, th.code, th.final, th.returned, th.last, th.origin, th.own = nil, 0, false, false, nil, nil, false
	th.raceOff = false
	th.job = nil
	th.sendVal, th.selVals, th.recvVal = nil, nil, nil
}

// collect returns the events of the transition that just ended, with a
// TimedOut event if it did not end, and the report of a goroutine that
// sthread does not control.
//
//go:norace
func (ex *execution) collect(ok bool) []any {
	r := ex.r
	if r.state && ok && !ex.failed {
		ex.events = append(ex.events, ex.stateEvent())
	}
	r.mu.Lock()
	msg := r.foreign
	r.mu.Unlock()
	if msg != "" && r.fatal == nil {
		r.fatal = errors.New(msg)
		evs := []any{wire.Failure{Tid: 1, Kind: wire.FailRuntime, Message: msg}}
		return append(evs, ex.events...)
	}
	return ex.events
}

// timedOut records the TimedOut event of stale thread th, and where its
// goroutine is.
//
//go:norace
func (ex *execution) timedOut(th *thread) {
	frames := th.last
	if frames == nil {
		frames = []uint64{uint64(funcLine(th.fn))}
	}
	ex.stuck = goroutineStack(th.goid.Load())
	ex.stuckTid = th.tid
	ex.events = append(ex.events, checker.TimedOut{Tid: th.tid, Frames: frames, After: ex.r.timeout.String()})
}

// goid returns the id of the calling goroutine, from its stack dump.
//
//go:norace
func goid() uint64 {
	var buf [64]byte
	s := strings.TrimPrefix(string(buf[:runtime.Stack(buf[:], false)]), "goroutine ")
	id, _ := strconv.ParseUint(s[:max(strings.IndexByte(s, ' '), 0)], 10, 64)
	return id
}

// goroutineStack returns the functions and source positions of the user's
// frames of goroutine id, innermost first, from the dump of all goroutines.
//
//go:norace
func goroutineStack(id uint64) []string {
	if id == 0 {
		return nil
	}
	buf := make([]byte, 1<<20)
	dump := string(buf[:runtime.Stack(buf, true)])
	head := fmt.Sprintf("goroutine %d [", id)
	i := strings.Index(dump, head)
	if i < 0 {
		return nil
	}
	block := dump[i:]
	if j := strings.Index(block, "\n\n"); j >= 0 {
		block = block[:j]
	}
	lines := strings.Split(block, "\n")
	var out []string
	for k := 1; k+1 < len(lines); k += 2 {
		fn := lines[k]
		if p := strings.LastIndexByte(fn, '('); p > 0 {
			fn = fn[:p]
		}
		if strings.HasPrefix(fn, trampolineName) {
			break
		}
		pos := strings.TrimSpace(lines[k+1])
		if p := strings.LastIndex(pos, " +0x"); p > 0 {
			pos = pos[:p]
		}
		file, _, _ := strings.Cut(pos, ":")
		if strings.HasPrefix(fn, "runtime.") || isSthreadFile(file) {
			continue
		}
		out = append(out, fmt.Sprintf("%s (%s)", shortName(fn), filepath.Base(pos)))
	}
	return out
}

// record copies frames into the execution's arena.
//
//go:norace
func (ex *execution) record(pcs []uintptr) []uint64 {
	if len(ex.arena)+len(pcs) > cap(ex.arena) {
		ex.arena = make([]uint64, 0, max(4096, 2*cap(ex.arena), len(pcs)))
	}
	n := len(ex.arena)
	for _, pc := range pcs {
		ex.arena = append(ex.arena, uint64(pc))
	}
	return ex.arena[n:len(ex.arena):len(ex.arena)]
}

// point is a scheduling point of thread th: it reports op as the thread's
// pending operation, called from the user's code that called the sthread
// function under way, hands control back and waits until the scheduler
// lets it perform the operation, and returns the operation's result.
//
//go:norace
func (th *thread) point(op syncmodel.Op) int64 {
	var buf [framesCap]uintptr
	return th.pointAt(op, th.capture(buf[:]))
}

// capture returns the frames of the user's call of the sthread function
// under way, at most the runner's depth, using buf.
//
//go:norace
func (th *thread) capture(buf []uintptr) []uintptr {
	pcs := buf[:callers(buf)]
	i := 0
	for i < len(pcs) && inSthread(pcs[i]) {
		i++
	}
	if th.origin != nil && (i == len(pcs) || isGoexit(pcs[i])) {
		// A goroutine of sthread's own (a timer): its operations are
		// shown where it was made.
		return th.origin
	}
	return pcs[i:min(len(pcs), i+th.ex.r.depth)]
}

// isGoexit reports whether return address pc is in runtime.goexit, the
// bottom of every goroutine's stack.
//
//go:norace
func isGoexit(pc uintptr) bool {
	f := runtime.FuncForPC(pc - 1)
	return f != nil && f.Name() == "runtime.goexit"
}

// pcClass caches inSthread, direct-mapped: an entry is pc<<1 | in. It is
// read and written atomically, so that a stale goroutine may use it too,
// except in race builds that hide sthread's hand-overs (quietLoad): frames
// are captured before a goroutine stops reporting synchronisation, and an
// entry written by one goroutine and read by the next that called the same
// sthread function ordered the two for the detector, in each process's
// first execution, which hid races. An entry is a pure function of its pc.
var pcClass [1 << 12]atomic.Uint64

// inSthread reports whether the return address pc lies in a function of
// package sthread, not counting the functions inlined into it: a user's
// function into which an sthread method was inlined is the user's.
//
//go:norace
func inSthread(pc uintptr) bool {
	slot := &pcClass[(pc^pc>>12)&(uintptr(len(pcClass))-1)]
	if e := quietLoad(slot); e>>1 == uint64(pc) {
		return e&1 == 1
	}
	in := false
	if f := runtime.FuncForPC(pc - 1); f != nil {
		if outer := runtime.FuncForPC(f.Entry()); outer != nil {
			file, _ := outer.FileLine(f.Entry())
			in = strings.HasPrefix(outer.Name(), sthreadPrefix) || isSthreadFile(file)
		}
	}
	e := uint64(pc) << 1
	if in {
		e |= 1
	}
	quietStore(slot, e)
	return in
}

// userFrame returns the innermost frame at return address pc that is not
// in package sthread (the user's call of an sthread method inlined into
// it), or the outermost frame.
//
//go:norace
func userFrame(pc uintptr) runtime.Frame {
	// CallersFrames expands the functions inlined at a PC only when more
	// PCs follow: the 0 that follows is skipped.
	frames := runtime.CallersFrames([]uintptr{pc, 0})
	for {
		fr, more := frames.Next()
		if !more || !isSthreadFile(fr.File) {
			return fr
		}
	}
}

// sthreadDir is the directory of this package's sources, as the Go runtime
// names them.
var sthreadDir = func() string {
	_, file, _, _ := runtime.Caller(0)
	return file[:strings.LastIndexByte(file, '/')+1]
}()

// isSthreadFile reports whether file is a source of this package (not one
// of its tests). Frames are told apart by file rather than by function
// name: a closure of an sthread function inlined into the user's code, such
// as the iterator of Chan.All, is named after the user's function.
//
//go:norace
func isSthreadFile(file string) bool {
	return strings.HasPrefix(file, sthreadDir) && !strings.HasSuffix(file, "_test.go") &&
		!strings.Contains(file[len(sthreadDir):], "/")
}

// pointAt is point with the frames already captured.
//
//go:norace
func (th *thread) pointAt(op syncmodel.Op, pcs []uintptr) int64 {
	if raceOn && raceHide {
		th.raceEnter()
	}
	if !th.leave(stParked) {
		panic(abortSignal{}) // stale
	}
	return th.pending(op, th.ex.record(pcs))
}

// again is point for the second half of an operation, reported where the
// first half was.
//
//go:norace
func (th *thread) again(op syncmodel.Op) int64 {
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
func (th *thread) pending(op syncmodel.Op, frames []uint64) int64 {
	ex := th.ex
	th.last = frames
	ex.events = append(ex.events, wire.Pending{Tid: th.tid, Op: op, Frames: frames})
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
	return th.code
}

// handBack gives control to the thread waiting for this one's first
// scheduling point, or to the scheduler. The caller's state is no longer
// running.
//
//go:norace
func (th *thread) handBack() {
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

// spawnAs creates the thread of a Go call made by th under the checker:
// the new goroutine runs f, and reports show it as running shown.
//
//go:norace
func (th *thread) spawnAs(f, shown func()) { th.spawn(f, shown, false) }

// spawn is spawnAs; a goroutine of sthread's own (a timer's: its first
// operation is its wait for its time, which must be pending from its
// creation on) has no start of its own.
//
//go:norace
func (th *thread) spawn(f, shown func(), own bool) {
	api := syncmodel.APIGo
	if own {
		api = syncmodel.APITimerNew
	}
	tid := int(th.point(syncmodel.Op{Kind: syncmodel.ThreadCreate, API: api, Arg: 1}))
	ex := th.ex
	if raceOn && raceHide {
		// The go statement orders what the parent did before it
		// before the child.
		raceReleaseMerge(ex.raceVar(raceThreadKey(tid)))
		raceDisable()
		defer raceEnable()
	}
	child := ex.newThread(tid, shown)
	child.job = f
	child.back = th
	child.own = own
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

// park hands control back without a pending operation and waits for the
// end of the execution.
//
//go:norace
func (th *thread) park() {
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
func (th *thread) start() {
	if th.hasWorker {
		th.wake <- struct{}{}
		return
	}
	th.hasWorker = true
	go th.work()
}

// work is the goroutine of a thread record: it runs the function of the
// thread, then waits for the thread of a later execution that reuses the
// record, until it is retired (or its thread goes stale).
//
//go:norace
func (th *thread) work() {
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
func (th *thread) retire() {
	th.retired = true
	th.wake <- struct{}{}
}

// run is the trampoline of every checked goroutine: it runs the thread's
// function and reports its end. It reports false if the thread went stale.
//
//go:norace
func (th *thread) run() (keep bool) {
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
		th.pointAt(syncmodel.Op{Kind: syncmodel.ThreadStart, API: syncmodel.APIThreadStart}, []uintptr{funcLine(th.fn)})
	}
	th.job()
	// The checked function's return ends its goroutine like any other:
	// the goroutines it started may go on (the checker ends the execution
	// once none can run without time passing), so that the return does
	// not race with what they still do.
	op := syncmodel.Op{Kind: syncmodel.ThreadExit, API: syncmodel.APIThreadReturn}
	if th.tid == 1 {
		op.API = syncmodel.APICheckedReturn
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
func (th *thread) lastPoint(op syncmodel.Op) {
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

// funcLine returns a pseudo return address that symbolizes to the first
// line of the function at entry, where a goroutine's return is shown.
//
//go:norace
func funcLine(entry uintptr) uintptr { return entry + 1 }

// exit ends the function of a checked goroutine: it reports a panic or a
// runtime.Goexit of the function as a failure, recovers the unwinding at
// the end of the execution, and hands control back a last time. It reports
// false if the thread went stale. p is what the trampoline recovered.
//
//go:norace
func (th *thread) exit(p any) bool {
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
		return true
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

// fail records a failure of thread th; the execution is over. pcs, if not
// nil, are the frames of the failure.
//
//go:norace
func (ex *execution) fail(th *thread, f wire.Failure, pcs []uintptr) {
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
func panicFailure(th *thread, p any) wire.Failure {
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
		case len(kept) == 0 && strings.HasPrefix(fr.Function, "runtime."):
			// panicmem, sigpanic, goPanicIndex, ...: the runtime raising it.
		case fr.Function == trampolineName,
			fr.Function == "runtime.goexit":
			more = false
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
	f := wire.Failure{Tid: th.tid, Kind: wire.FailPanic, Message: panicMessage(p), Frames: kept}
	if len(resolved) > 0 {
		f.File, f.Line, f.Func = resolved[0].File, resolved[0].Line, resolved[0].Func
	}
	return f
}

// trampolineName is the name of the function that runs every checked
// goroutine's function.
const trampolineName = sthreadPrefix + "(*thread).run"

// trimStack drops the frames of the trampoline and below from the return
// addresses pcs of a checked goroutine.
//
//go:norace
func trimStack(pcs []uintptr) []uintptr {
	for i, pc := range pcs {
		if f := runtime.FuncForPC(pc - 1); f != nil {
			if outer := runtime.FuncForPC(f.Entry()); outer != nil && outer.Name() == trampolineName {
				return pcs[:i]
			}
		}
	}
	return pcs
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
	return fmt.Sprintf("%v", p)
}

// sthreadPrefix is the prefix of the names of this package's functions.
const sthreadPrefix = "github.com/stdbg/stdbg/sthread."
