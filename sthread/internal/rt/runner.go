// Package rt is the runtime of package sthread and of its mirrors of the
// standard library (sthread/sync, sthread/time, ...): it runs the
// goroutines of a checked function one at a time, as a executor.Runtime of
// package checker, and gives every primitive its scheduling points.
//
// Hand-over. Exactly one goroutine runs at a time: the scheduler (the
// goroutine running the search, which calls Begin, Resume and End) or one
// checked thread. Each thread has its own wake channel; the scheduler has
// one too (Runner.sched). A thread that reaches a scheduling point records
// its pending operation, hands control back (to the scheduler, or to the
// thread that created it while that one waits for its first scheduling
// point) and blocks on its wake channel until Resume sends on it.
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
// runner retires its idle workers when the check ends. A stale goroutine
// cannot be stopped: its next sthread call panics with abortSignal, and
// until it ends sthread stays hooked so that it can find out.
//
// Every function of the package that runs while checked goroutines hand
// control over is //go:norace: see race.go.
package rt

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/wire"
)

// Config is what a runner needs to know of the check it serves.
type Config struct {
	// Depth is the number of frames recorded per scheduling point: 1 for
	// a search, ReportDepth for a report, FramesCap at most.
	Depth int
	// Timeout is the transition timeout.
	Timeout time.Duration
	// Logs makes the logs of TB go to the test (a replay of one schedule).
	Logs bool
	// NoWatch turns the transition watchdog off (under a debugger).
	NoWatch bool
	// State reports the program state with every hand-over (stateful
	// search).
	State bool
	// Restore puts the registered package-level variables (RegisterVars)
	// back before each execution but the first, as they were when the
	// first began (see state.go): for the search inside the target, which
	// runs every execution in one process.
	Restore bool
	// Vars is the number of variables that must have registered
	// themselves (targetsearch.Spec.Vars): with fewer, Begin fails.
	Vars int
	// MaxStall is the stall bound of virtual time (executor.Options).
	MaxStall *time.Duration
	// CheckThreads checks the executor's thread list against the model
	// after every step (executor.Options.CheckThreads; for tests).
	CheckThreads bool
	// Once says the runner serves one execution (the replay that explains
	// a bug, perhaps under a debugger): its goroutines are never reused,
	// so a goroutine that a panic unwound stays parked, as every other
	// one does, where a debugger stopped at the end of the replay lists
	// it with its thread (see Thread.exit).
	Once bool
}

// Frames captured: at a scheduling point (the user's call and, when a report
// is built, its callers), and for a failure.
const (
	// FramesCap is the most frames a scheduling point records.
	FramesCap = 24
	// ReportDepth is the frames recorded per scheduling point for a
	// report.
	ReportDepth = 16
	failureCap  = 64
)

// genCounter numbers executions across all checks of the process, so that
// an object registered in one execution is never taken as registered in
// another.
var genCounter atomic.Uint32

// A Runner runs the executions of one checked function: it implements
// executor.Runtime.
type Runner struct {
	f     func()
	cfg   Config
	procs int           // GOMAXPROCS before the check
	sched chan struct{} // the scheduler's handoff channel
	seq   atomic.Uint64 // odd while the scheduler waits for a transition
	alarm atomic.Bool   // the watchdog made the running thread stale
	// deadline is when the phase under way (the search, then the
	// minimisation) must end, in Unix nanoseconds (0: never): a
	// transition still running then is cut (SetDeadline). cut reports
	// that the alarm was the deadline's, not the timeout's.
	deadline atomic.Int64
	cut      atomic.Bool
	ran      atomic.Int64  // how long the transition had run at the alarm
	done     chan struct{} // closed when the check ends
	ex       atomic.Pointer[Execution]
	free     []*Thread  // idle workers: threads of ended executions
	last     *Execution // the last execution that ended
	begun    *Execution // the last execution begun
	fatal    error      // the program cannot be checked: Begin fails
	state    *snapshot  // the package-level variables, with Config.Restore

	mu      sync.Mutex // guards foreign and outsider
	foreign string     // a goroutine not started with Go touched the program's objects
	// outsider: that goroutine was started by a go statement of the
	// program outside the check (see outside.go): the check cannot judge
	// the program, which is not at fault.
	outsider bool

	known sync.Map // uint64 pc -> symbolize.Frame resolved in its stack, for failures
}

// Start makes a runner of f, hooks sthread to it, runs the process on one
// processor and starts the watchdog; it returns the runner and the checker
// that drives it. Stop undoes it. One goroutine runs at a time anyway, and
// on one processor a handoff does not wake an idle processor, a system call
// on the critical path of every transition: checking is about 1.5 times
// faster. One runner runs at a time in a process.
//
//go:norace
func Start(f func(), cfg Config) (*Runner, *executor.Executor) {
	r := &Runner{f: f, cfg: cfg, sched: make(chan struct{}, 1), done: make(chan struct{})}
	r.procs = runtime.GOMAXPROCS(1)
	if !cfg.NoWatch {
		// Started before the scheduler hides its synchronisation, so
		// that for the race detector the process's past (the standard
		// library's initialisation) happens before the watchdog and its
		// ticker: see watch.
		go r.watch()
	}
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
	return r, executor.New(r, executor.Options{FastExit: true, Locate: Locate, MaxStall: cfg.MaxStall, CheckThreads: cfg.CheckThreads})
}

// Stop ends the check of r: it retires its idle workers and unhooks
// sthread.
//
//go:norace
func (r *Runner) Stop() {
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
// longer than the timeout, or is still running when the deadline passes
// (SetDeadline). It checks eight times per timeout, and at least every
// watchEvery. The alarm makes the running thread stale, if it is still
// running that transition, and wakes the scheduler in its place.
//
// In a race build the goroutine must not start while its parent hides its
// synchronisation (raceDisable): the detector would see nothing of the
// process happen before it, nor before the callback of its ticker, which
// the Go runtime runs on the system stack of the scheduling thread, and
// which reads the time package's start (time.Now). The detector reported
// that read as a race with the package's initialisation, and a report made
// on the system stack crashes the Go race runtime (SIGSEGV in
// runtime.racecallbackthunk, nothing written): the target died silently
// during a long transition, a tick after the check began. (A timer made as
// the package initialises, in outside.go, hides this by luck: the ticker's
// first reading of the time package's settings then synchronises with the
// initialisation.)
//
//go:norace
func (r *Runner) watch() {
	tick := min(max(r.cfg.Timeout/8, time.Millisecond), watchEvery)
	t := newTicker(tick)
	defer t.Stop()
	var last uint64
	var since time.Time // when the transition seq was first seen running
	for {
		var now time.Time
		select {
		case <-r.done:
			return
		case now = <-t.C:
		}
		seq := r.seq.Load()
		if seq&1 == 0 || seq != last {
			last, since = seq, now
			continue
		}
		d := r.deadline.Load()
		past := d != 0 && now.UnixNano() >= d
		if !past && now.Sub(since) < r.cfg.Timeout {
			continue
		}
		ran := now.Sub(since)
		since = now
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
			r.cut.Store(past)
			r.ran.Store(int64(ran))
			r.alarm.Store(true)
			r.sched <- struct{}{}
		}
	}
}

// watchEvery is the longest time between two looks of the watchdog at the
// transition under way: how late past its deadline a transition may be cut.
const watchEvery = 20 * time.Millisecond

// SetDeadline makes the watchdog cut the transition still running at
// until (Unix nanoseconds; 0: none), which no step boundary would stop:
// the execution then ends with a TimedOut event marked Cut, or with a
// failure that the checker cannot judge when the goroutine waits outside
// the model (see timedOut). The search inside the target sets the end of
// the phase under way, the search's then the minimisation's.
//
//go:norace
func (r *Runner) SetDeadline(until int64) { r.deadline.Store(until) }

// newTicker is time.NewTicker (a test's in tests).
var newTicker = time.NewTicker

// Begun returns the last execution begun.
//
//go:norace
func (r *Runner) Begun() *Execution { return r.begun }

// Begin implements executor.Runtime: it starts the checked function as
// thread 1 and returns the events up to its first scheduling point.
//
//go:norace
func (r *Runner) Begin() ([]wire.Event, error) {
	if r.fatal != nil {
		return nil, r.fatal
	}
	if r.cfg.Restore {
		if err := r.putBack(); err != nil {
			r.fatal = err
			return nil, err
		}
	}
	ex := r.newExecution()
	th := ex.newThread(1, r.f)
	r.begun = ex
	r.ex.Store(ex)
	ex.running.Store(th)
	th.running(r.seq.Add(1))
	th.start()
	ok := r.await()
	r.seq.Add(1)
	return ex.collect(ok)
}

// Resume implements executor.Runtime.
//
//go:norace
func (r *Runner) Resume(tid int, code int64) ([]wire.Event, error) {
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
	return ex.collect(ok)
}

// wakeUp lets parked thread th run, as the scheduler.
//
//go:norace
func (r *Runner) wakeUp(ex *Execution, th *Thread) {
	th.back = nil
	th.running(r.seq.Add(1))
	ex.running.Store(th)
	th.wake <- struct{}{}
}

// End implements executor.Runtime: it unwinds every parked thread, one at a
// time, and waits for its goroutine to end.
//
//go:norace
func (r *Runner) End(clean bool) {
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
func (r *Runner) await() bool {
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

// collect returns the events of the transition that just ended, with a
// TimedOut event if it did not end, and the report of a goroutine that
// sthread does not control: a failure of the program for one it did not
// start with Go, one the checker cannot judge (wire.FailCannotJudge) for
// one that a go statement of the program started outside the check.
//
//go:norace
func (ex *Execution) collect(ok bool) ([]wire.Event, error) {
	r := ex.r
	if r.cfg.State && ok && !ex.failed {
		ex.events = append(ex.events, ex.stateEvent())
	}
	ex.noteOutside()
	r.mu.Lock()
	msg, outsider := r.foreign, r.outsider
	r.mu.Unlock()
	if msg != "" && r.fatal == nil {
		kind := wire.FailRuntime
		r.fatal = errors.New(msg)
		if outsider {
			kind = wire.FailCannotJudge
			r.fatal = fmt.Errorf("%w: %s", search.ErrCannotJudge, msg)
		}
		evs := []wire.Event{wire.Failure{Tid: 1, Kind: kind, Message: msg}}
		return append(evs, ex.events...), nil
	}
	return ex.events, nil
}

// timedOut records how the transition of stale thread th ended, and where
// its goroutine is: a TimedOut event (marked Cut when the deadline, not the
// timeout, ended it), or, when the goroutine waits in code that stdbg does
// not instrument for another goroutine (on a real channel or lock: see
// waitsForOthers), a failure the checker cannot judge. Only one thread
// runs at a time: what would wake it, a thread that the scheduler holds
// at its scheduling point or an event stdbg does not schedule, cannot
// happen while the scheduler waits for it, and a verdict either way (a
// timeout, a deadlock) would be the model's, not the program's.
//
//go:norace
func (ex *Execution) timedOut(th *Thread) {
	frames := th.last
	if frames == nil {
		frames = []uint64{uint64(funcLine(th.fn))}
	}
	state, stack := goroutineState(th.goid.Load())
	ex.stuck = stack
	ex.stuckTid = th.tid
	r := ex.r
	ran := time.Duration(r.ran.Load())
	if waitsForOthers(state) && (!r.cut.Load() || ran >= minOutsideWait) {
		where := "code stdbg does not instrument"
		if len(stack) > 0 {
			where = stack[0]
			if len(stack) > 1 {
				where += ", called from " + stack[1]
			}
		}
		msg := "thread " + strconv.Itoa(th.tid) + " waited " + roundDuration(ran).String() + " outside the model (" + state + " in " + where +
			") for something stdbg does not schedule: it runs one goroutine at a time, and what could wake this one cannot run before it reaches its next scheduling point"
		ex.events = append(ex.events, wire.Failure{Tid: th.tid, Kind: wire.FailCannotJudge, Frames: frames, Message: msg})
		return
	}
	after := r.cfg.Timeout
	if r.cut.Load() {
		after = ran
	}
	ex.events = append(ex.events, wire.TimedOut{Tid: th.tid, Frames: frames, After: roundDuration(after).String(), Cut: r.cut.Load()})
}

// minOutsideWait is how long a goroutine must have waited outside the
// model, when the deadline cuts its transition, for the check to say it
// cannot judge the program rather than that its budget ran out: a wait of
// a few milliseconds on a lock of code stdbg does not instrument is the
// ordinary course of a transition.
const minOutsideWait = 100 * time.Millisecond

// roundDuration is d as a message says it: to the millisecond.
//
//go:norace
func roundDuration(d time.Duration) time.Duration { return d.Round(time.Millisecond) }

// FuncName names f for error messages: its name without its package path.
//
//go:norace
func FuncName(f func()) string {
	return shortFunc(runtime.FuncForPC(reflect.ValueOf(f).Pointer()))
}
