// Package executor joins a runtime — the process or library that really runs
// the target's threads — with the synchronization model, and offers the
// result to package search as an Executor.
//
// A runtime reports, for every thread, the operation it is about to perform;
// the executor feeds the reports to a syncmodel.World, which decides who is
// enabled and what each operation returns; the search picks a thread; the
// executor tells the runtime to run it with the model's result. The same
// executor serves C targets and Go targets (package targetproc runs both).
package executor

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/model/wire"
)

// Runtime runs the threads of one target and reports what they do as
// events (wire.Event), in the order they happened.
type Runtime interface {
	// Begin starts a fresh execution and returns the events up to the
	// first scheduling point.
	Begin() ([]wire.Event, error)
	// Resume lets thread tid perform its pending operation with result
	// code and returns the events of the transition.
	Resume(tid int, code int64) ([]wire.Event, error)
	// End ends the current execution. With clean set (the program is
	// leaving normally) the runtime may let it finish on its own.
	End(clean bool)
}

// An Outsider is a Runtime whose program may run code the model does not
// see act on its threads' objects: goroutines it does not control (started
// before the check), channels that something outside the check feeds or
// closes. A deadlock or a leak claims that nothing can wake the blocked
// threads; before the executor makes that claim it asks Outside, and a
// non-empty answer says what may still wake them. The step that reached
// that state then fails with an error wrapping search.ErrCannotJudge: the
// search stops and says why, instead of reporting a bug the model cannot
// back. A runtime in another process says the same with a note
// (wire.NoteOutside), which holds until the next one.
type Outsider interface {
	Outside() string
}

// Locator turns a code address reported by the runtime into a stable,
// human-readable place ("file.c:12"), used to recognise the same bug across
// executions. It may return "" when it knows nothing better.
type Locator func(pc uint64) string

// Options configure a Executor.
type Options struct {
	// Locate identifies places; nil uses hexadecimal addresses.
	Locate Locator
	// FastExit ends an execution as soon as a thread is granted its exit,
	// without letting the program leave on its own (exploration does not
	// need atexit handlers or flushed output; replay does).
	FastExit bool
	// Races turns on the data race detector over visible memory accesses
	// (see race.go). It orders accesses by the synchronization of C
	// targets only.
	Races bool
	// Variable names the variable at a data address ("counter",
	// "table+8"), for race reports; nil or "" leaves the address alone.
	Variable func(addr uint64) string
	// SpuriousWakeups lets each thread's untimed condition waits return
	// once per execution without a signal, as POSIX allows (see
	// syncmodel.World.SetSpuriousWakeups): a wait guarded by if instead of
	// while is then found even with one waiter.
	SpuriousWakeups bool
	// MaxStall is the stall bound of Go targets' virtual time
	// (syncmodel.World.SetMaxStall): nil, syncmodel.DefaultMaxStall; a
	// negative bound, none.
	MaxStall *time.Duration
	// CheckThreads is a check for tests: after every step the thread list
	// (Threads), which is brought up to date from what the step changed,
	// is compared with one made afresh from the model, and a difference
	// fails the step with an error (ErrThreadList). It costs a full pass
	// over the threads per step.
	CheckThreads bool
}

// Executor is a search.Executor over a Runtime.
type Executor struct {
	rt   Runtime
	opts Options
	locs map[uint64]string
	cur  *Execution
	// probed: the runtime was asked whether it keeps threads (Pooler).
	probed bool
	// planBuf holds the steps announced to a Batcher (plan).
	planBuf []wire.Run
	// incrementalFrom, if positive, replaces the number of live threads
	// from which the thread list is kept by an index (threads.go).
	incrementalFrom int
	// spareRaces is the race detector of the last searched execution,
	// whose room the next one's takes (takeRaces).
	spareRaces *raceDetector
}

// New returns an executor driving rt.
func New(rt Runtime, opts Options) *Executor {
	return &Executor{rt: rt, opts: opts, locs: make(map[uint64]string)}
}

// Start implements search.Executor.
func (c *Executor) Start() (search.Execution, error) {
	return c.Begin()
}

// Begin starts an execution and returns it with its full type, for callers
// that want the trace afterwards.
func (c *Executor) Begin() (*Execution, error) { return c.beginWith(nil) }

// beginWith is Begin giving the new execution the room of spare (an
// execution no one keeps, or nil): its trace, its model and its lists.
func (c *Executor) beginWith(spare *Execution) (*Execution, error) {
	if !c.probed {
		c.probed = true
		if pl, ok := c.rt.(Pooler); ok && pl.WantsPool() {
			pl.SetPool(c.probe())
		}
	}
	return c.begin(spare)
}

func (c *Executor) begin(spare *Execution) (*Execution, error) {
	if c.cur != nil && !c.cur.closed {
		c.cur.Close()
	}
	// Executions of one program have about the same length: the trace
	// gets the previous one's room at once instead of growing to it.
	room := 16
	if c.cur != nil {
		room = max(room, len(c.cur.trace)+8)
	}
	e := &Execution{c: c}
	if spare != nil {
		if spare.races != nil {
			c.spareRaces = spare.races
		}
		spare.w.Reset()
		e.w, e.trace, e.threads = spare.w, spare.trace[:0], spare.threads[:0]
		e.frames, e.ostids = spare.frames[:0], spare.ostids[:0]
		e.idx = spare.idx
		e.idx.reset()
		e.opnds = spare.opnds[:0]
		e.spins, e.awaiting = spare.spins, spare.awaiting
		e.resetSpins()
	} else {
		e.w = syncmodel.NewWorld()
	}
	if cap(e.trace) < room {
		e.trace = make([]Step, 0, room)
	}
	e.w.SetSpuriousWakeups(c.opts.SpuriousWakeups)
	e.w.SetMaxStall(syncmodel.DefaultMaxStall)
	if d := c.opts.MaxStall; d != nil {
		e.w.SetMaxStall(int64(*d))
	}
	c.cur = e
	evs, err := c.rt.Begin()
	if err != nil {
		return nil, err
	}
	if err := e.absorb(evs); err != nil {
		e.Close()
		return nil, err
	}
	e.settle()
	if e.err != nil {
		e.Close()
		return nil, e.err
	}
	return e, nil
}

func (c *Executor) locate(pc uint64) string {
	if l := c.locateKnown(pc); l != "" {
		return l
	}
	return fmt.Sprintf("%#x", pc)
}

// locateKnown is what the Locator says of pc, "" when it knows nothing
// (an annotation's own code, whose caller is the place to show).
func (c *Executor) locateKnown(pc uint64) string {
	if l, ok := c.locs[pc]; ok {
		return l
	}
	l := ""
	if c.opts.Locate != nil {
		l = c.opts.Locate(pc)
	}
	c.locs[pc] = l
	return l
}

// Step is one executed transition, as recorded in an execution's trace.
type Step struct {
	Thread int
	Choice int
	Op     syncmodel.Op
	// Frames are where the thread called the operation (innermost first).
	Frames []uint64
	// Operand is what the operation, an atomic store or read-modify-write
	// of a C program, stored, as its runtime reported it: for display
	// only, no part of the model.
	Operand wire.Operand
	// Result is what the operation returned.
	Result syncmodel.Result
	// Preempts is set when this step switched away from the thread of the
	// previous step although that thread could have gone on.
	Preempts bool
}

// Blocked describes a thread that cannot go on at the end of an execution.
type Blocked struct {
	Thread int
	Op     syncmodel.Op
	Frames []uint64
	Wait   syncmodel.Wait
}

// Execution is one run of the target under the checker.
type Execution struct {
	c       *Executor
	w       *syncmodel.World
	frames  [][]uint64     // frames[tid]: where live thread tid's pending op was called
	opnds   []wire.Operand // opnds[tid]: what its pending op stores, if reported
	ostids  []int          // ostids[tid]: its kernel thread id, 0 unknown
	trace   []Step
	outcome *search.Outcome
	failure *wire.Failure
	timeout *wire.TimedOut
	blocked []Blocked
	threads []search.Thread
	closed  bool
	ended   bool
	// returned: thread 1 returned from a checked Go function (a
	// ThreadExit with API APICheckedReturn, or APITestSkip when the test
	// skipped itself: skipped); the execution ends once no other thread
	// can go on without time passing.
	returned, skipped bool
	// lateFires counts, per thread, the timer waits it ran after the
	// checked function returned (see lateFireBound).
	lateFires map[int]int
	// earlyTimeout, per thread, lists the threads that could still run
	// when the thread took a timer's time in a select (see noteTimeout
	// and watchdog).
	earlyTimeout map[int][]int
	state        *wire.State   // the runtime's last state report (wire.FlagState)
	races        *raceDetector // nil until the first memory access
	// misuseAt is the thread the misuse that ended the execution is placed
	// at (MisuseThread).
	misuseAt int
	// searched: started by StartPrefix, its trace's room goes to the next.
	searched bool
	// err: the execution reached a state the executor cannot judge (see
	// Outsider); the step that reached it returns it.
	err error
	// outside is what the runtime's latest wire.NoteOutside said (see
	// Outsider).
	outside string
	// Spin loops (spin.go): each thread's stretch, the threads that wait
	// for a write, the operation of the step under way.
	spins    []stretch
	awaiting []int
	ran      spinRan
	// spinReads is the number of reads the stretches hold, all threads
	// together: none, and a write has nothing to dirty.
	spinReads int
	// idx finds the threads a step may have changed (threads.go).
	idx threadIndex
	// checkBuf is the room of the list made afresh (Options.CheckThreads).
	checkBuf []search.Thread
}

// Threads implements search.Execution.
func (e *Execution) Threads() []search.Thread { return e.threads }

// Ended implements search.Execution.
func (e *Execution) Ended() *search.Outcome { return e.outcome }

// Trace returns the transitions executed so far.
func (e *Execution) Trace() []Step { return e.trace }

// Failure returns the runtime's failure report, if the execution ended
// with one (assertion, crash, abort).
func (e *Execution) Failure() *wire.Failure { return e.failure }

// MisuseThread returns the thread whose operation the misuse that ended
// the execution is placed at: the thread that made the last step, or the
// one about to perform the other operation of a pair that nothing orders
// (syncmodel.Misuse.At); 0 if the execution did not end with a misuse.
func (e *Execution) MisuseThread() int { return e.misuseAt }

// TimedOut returns the timeout event, if the execution ended with one.
func (e *Execution) TimedOut() *wire.TimedOut { return e.timeout }

// BlockedThreads returns the threads that could not go on when the
// execution ended in a deadlock or leak.
func (e *Execution) BlockedThreads() []Blocked { return e.blocked }

// World returns the model state (read only).
func (e *Execution) World() *syncmodel.World { return e.w }

// PendingFrames returns where thread tid called its pending operation.
func (e *Execution) PendingFrames(tid int) []uint64 {
	if tid < 0 || tid >= len(e.frames) {
		return nil
	}
	return e.frames[tid]
}

// OSTid returns the kernel thread id the runtime reported for thread tid.
func (e *Execution) OSTid(tid int) int {
	if tid < 0 || tid >= len(e.ostids) {
		return 0
	}
	return e.ostids[tid]
}

// Schedule returns the schedule executed so far.
func (e *Execution) Schedule() schedule.Schedule {
	s := make(schedule.Schedule, len(e.trace))
	for i, st := range e.trace {
		s[i] = schedule.Step{Thread: st.Thread, Choice: st.Choice}
	}
	return s
}

// cutRedundantWake ends the execution when thread tid, whose wait on op's
// condition just returned spuriously at once, waits again on the same
// condition with the same mutex before anything else ran: it is back
// where the waiting branch of the same choice put it (the wait loop
// rechecked its predicate), so this execution's continuation is that
// branch's, which the search explores anyway. The execution ends as a
// clean one, marked Redundant: it is not an end of the program, and a
// state graph must not take its last state for one (an LTL check would
// see the program stop there for ever).
func (e *Execution) cutRedundantWake(tid int, op *syncmodel.Op) {
	next, ok := e.w.Pending(tid)
	if e.outcome != nil || !ok || next.Kind != syncmodel.CondWait || next.Obj != op.Obj || next.Obj2 != op.Obj2 {
		return
	}
	e.finish(&search.Outcome{Kind: search.Exited, Message: "cut: the spurious wake-up was followed by the same wait", Redundant: true}, false)
}

// ErrEnded is returned by Step on an execution that is over.
var ErrEnded = errors.New("execution already ended")

// Step implements search.Execution.
func (e *Execution) Step(st schedule.Step) error {
	if e.outcome != nil || e.closed {
		return ErrEnded
	}
	tid := st.Thread
	// The step's record is made in the trace at once, the pending
	// operation copied into it (an operation is too big to copy around).
	// (Every field of the record is set below: room kept from an
	// earlier execution is not cleared first.)
	if n := len(e.trace); n < cap(e.trace) {
		e.trace = e.trace[:n+1]
	} else {
		e.trace = append(e.trace, Step{})
	}
	rec := &e.trace[len(e.trace)-1]
	rec.Thread = tid
	if !e.w.PendingTo(tid, &rec.Op) {
		e.trace = e.trace[:len(e.trace)-1]
		return fmt.Errorf("thread %d has no pending operation", tid)
	}
	op := &rec.Op
	choice := st.Choice
	alternatives := e.w.Choices(tid)
	if alternatives == 0 {
		choice = schedule.NoChoice
	}
	e.spinStep(tid)
	var leaked []Blocked
	if op.Kind == syncmodel.Exit {
		leaked = e.blockedNow(tid)
	}
	preempts := false
	if n := len(e.trace) - 1; n > 0 {
		prev := e.trace[n-1].Thread
		preempts = prev != tid && e.w.Enabled(prev)
	}
	res, err := e.w.Execute(tid, choice)
	e.change(tid)
	if e.idx.on {
		e.idx.touchOp(tid, op)
	}
	rec.Choice, rec.Frames, rec.Result, rec.Preempts = choice, e.PendingFrames(tid), res, preempts
	rec.Operand = wire.Operand{}
	if tid < len(e.opnds) {
		rec.Operand = e.opnds[tid]
	}
	if err != nil {
		// (Only here: the target of errors.As lives on the heap.)
		var mis *syncmodel.Misuse
		if errors.As(err, &mis) {
			where := op.API.String() + "@" + e.where(rec.Frames)
			e.misuseAt = tid
			if p, ok := e.w.Pending(mis.At); ok && mis.At != tid {
				// Placed at another thread's pending operation
				// (syncmodel.Misuse.At).
				where = p.API.String() + "@" + e.where(e.PendingFrames(mis.At))
				e.misuseAt = mis.At
			}
			e.finish(&search.Outcome{Kind: search.Misuse, Message: mis.Msg, Where: where}, false)
			return nil
		}
		return fmt.Errorf("step %d (thread %d, %s): %w", len(e.trace), tid, op.Kind, err)
	}
	if tid < len(e.frames) {
		e.frames[tid] = nil
	}
	if tid < len(e.opnds) {
		e.opnds[tid] = wire.Operand{}
	}
	e.ran = spinRan{tid: tid, step: len(e.trace) - 1, valid: true}
	if e.checkRace(); e.outcome != nil {
		return nil
	}
	e.noteTimeout(tid, op, res, alternatives > 1)
	if e.returned && op.Kind == syncmodel.TimerWait {
		if e.lateFires == nil {
			e.lateFires = make(map[int]int)
		}
		e.lateFires[tid]++
	}
	if op.Kind == syncmodel.ThreadExit && (op.API == syncmodel.APICheckedReturn || op.API == syncmodel.APITestSkip) {
		e.returned = true
		e.skipped = op.API == syncmodel.APITestSkip
	}
	if op.Kind == syncmodel.Exit && len(leaked) > 0 {
		if e.cannotJudge(leaked, "the program exits while") {
			return e.err
		}
		e.blocked = leaked
		e.finish(&search.Outcome{Kind: search.Leak, Message: leakMessage(leaked), Where: e.blockedKey(leaked)}, false)
		return nil
	}
	if op.Kind == syncmodel.Exit && e.c.opts.FastExit {
		status, _ := e.w.Exited()
		e.finish(&search.Outcome{Kind: search.Exited, Message: fmt.Sprintf("exit status %d", status)}, false)
		return nil
	}
	e.state = nil
	evs, err := e.c.rt.Resume(tid, res.Code)
	if err != nil {
		return err
	}
	if op.Kind == syncmodel.Exit {
		// The program leaves: its death is expected, anything else it
		// reports on the way out (an atexit handler crashing) is not.
		kept := evs[:0]
		for _, ev := range evs {
			if _, ok := ev.(wire.Died); !ok {
				kept = append(kept, ev)
			}
		}
		evs = kept
	}
	if err := e.absorb(evs); err != nil {
		return err
	}
	if e.ran.valid {
		// No report of the thread's next point: it finished, or the
		// execution ended.
		e.spinDone(tid, wire.Spin{})
	}
	if e.outcome == nil && op.Kind == syncmodel.Exit {
		status, _ := e.w.Exited()
		e.finish(&search.Outcome{Kind: search.Exited, Message: fmt.Sprintf("exit status %d", status)}, true)
		return nil
	}
	if res.Spurious {
		e.cutRedundantWake(tid, op)
	}
	e.settle()
	return e.err
}

// absorbPending applies a thread's report of its pending operation.
func (e *Execution) absorbPending(v *wire.Pending) error {
	if !v.Op.Kind.Valid() {
		return fmt.Errorf("runtime reported an unknown operation kind %d for thread %d", v.Op.Kind, v.Tid)
	}
	if err := e.w.SetPendingRef(v.Tid, &v.Op); err != nil {
		return fmt.Errorf("runtime report for thread %d: %w", v.Tid, err)
	}
	e.change(v.Tid)
	if e.idx.on {
		if !e.ran.valid || e.ran.tid != v.Tid {
			// (After a step, what its operation touched is noted
			// already.)
			e.idx.touchWatched(v.Tid)
		}
		e.idx.touchOp(v.Tid, &v.Op)
	}
	e.spinPoint(v)
	for v.Tid >= len(e.frames) {
		e.frames = append(e.frames, nil)
	}
	e.frames[v.Tid] = v.Frames
	if v.Operand.Op != wire.OperandNone || v.Tid < len(e.opnds) {
		for v.Tid >= len(e.opnds) {
			e.opnds = append(e.opnds, wire.Operand{})
		}
		e.opnds[v.Tid] = v.Operand
	}
	if v.OSTid != 0 {
		for v.Tid >= len(e.ostids) {
			e.ostids = append(e.ostids, 0)
		}
		e.ostids[v.Tid] = v.OSTid
	}
	return nil
}

// absorb applies runtime events.
func (e *Execution) absorb(evs []wire.Event) error {
	for _, ev := range evs {
		if e.outcome != nil {
			break
		}
		switch v := ev.(type) {
		case wire.Pending:
			if err := e.absorbPending(&v); err != nil {
				return err
			}
		case *wire.Pending:
			if err := e.absorbPending(v); err != nil {
				return err
			}
		case wire.Failure:
			if v.Kind == wire.FailCannotJudge {
				return fmt.Errorf("%w: %s", search.ErrCannotJudge, v.Message)
			}
			f := v
			e.failure = &f
			if o := e.watchdog(&f); o != nil {
				e.finish(o, false)
				break
			}
			e.finish(failureOutcome(e, &f), false)
		case wire.TimedOut:
			if v.Cut {
				return fmt.Errorf("%w: thread %d had not reached its next scheduling point after %s: %w",
					search.ErrStepCut, v.Tid, v.After, context.DeadlineExceeded)
			}
			t := v
			e.timeout = &t
			where := "thread " + fmt.Sprint(t.Tid)
			if len(t.Frames) > 0 {
				where = e.where(t.Frames)
			}
			e.finish(&search.Outcome{Kind: search.Timeout,
				Message: fmt.Sprintf("thread %d did not reach its next scheduling point within %s", t.Tid, t.After),
				Where:   where}, false)
		case wire.Died:
			e.finish(&search.Outcome{Kind: search.Crash, Message: "the program " + v.Description +
				" without reporting why", Where: v.Description}, false)
		case wire.State:
			st := v
			e.state = &st
		case wire.Accesses:
			e.checkLogged(&v)
			e.spinAccesses(&v)
		case *wire.Accesses:
			e.checkLogged(v)
			e.spinAccesses(v)
		case wire.Note:
			if why, ok := strings.CutPrefix(v.Text, wire.NoteOutside); ok {
				e.outside = why
			}
		case wire.Stack:
			// Diagnostics only.
		case wire.Done:
			if v.Tid != 0 && !e.w.Finished(v.Tid) {
				return fmt.Errorf("runtime says thread %d finished, but it did not exit", v.Tid)
			}
		default:
			return fmt.Errorf("unexpected runtime event %T", ev)
		}
	}
	return nil
}

func failureOutcome(e *Execution, f *wire.Failure) *search.Outcome {
	o := &search.Outcome{}
	switch f.Kind {
	case wire.FailAssert, wire.FailUser:
		o.Kind = search.AssertionFailure
		o.Message = "assertion failed: " + f.Message
		if f.File != "" {
			o.Where = fmt.Sprintf("%s:%d", baseName(f.File), f.Line)
		}
	case wire.FailSignal:
		o.Kind = search.Crash
		o.Message = fmt.Sprintf("%s (signal %d)", f.Message, f.Signal)
		if f.Signal == 11 || f.Signal == 7 {
			o.Message += fmt.Sprintf(" accessing address %#x", f.Addr)
			if f.Addr < 4096 {
				o.Message += " (a null pointer)"
			}
		}
	case wire.FailAbort:
		o.Kind = search.Crash
		o.Message = "abort() called"
	case wire.FailPanic:
		o.Kind = search.Crash
		o.Message = "panic: " + f.Message
	case wire.FailMisuse:
		o.Kind = search.Misuse
		o.Message = f.Message
		if f.File != "" {
			o.Where = fmt.Sprintf("%s@%s:%d", f.Func, baseName(f.File), f.Line)
		}
	case wire.FailRace:
		o.Kind = search.DataRace
		o.Message = f.Message
		if f.File != "" {
			o.Where = fmt.Sprintf("%s:%d", baseName(f.File), f.Line)
		}
	default:
		o.Kind = search.Crash
		o.Message = "runtime failure: " + f.Message
	}
	if o.Where == "" {
		o.Where = e.where(f.Frames)
	}
	return o
}

// where is the stable place of a stack: its first frame located by the
// Locator.
func (e *Execution) where(frames []uint64) string {
	if len(frames) == 0 {
		return "?"
	}
	for i, pc := range frames {
		if i == 4 {
			break
		}
		if l := e.c.locateKnown(pc); l != "" {
			return l
		}
	}
	return e.c.locate(frames[0])
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// settle recomputes the thread list and detects the end of the execution.
func (e *Execution) settle() {
	if e.outcome != nil {
		return
	}
	e.listThreads()
	if e.c.opts.CheckThreads {
		if err := e.checkThreads(); err != nil {
			e.err = err
			return
		}
	}
	anyEnabled, runnable := false, false
	live := len(e.threads)
	for i := range e.threads {
		t := &e.threads[i]
		if t.Enabled && e.returned && t.Op.Kind == syncmodel.TimerWait && e.lateFires[t.ID] >= lateFireBound {
			t.Enabled = false
		}
		anyEnabled = anyEnabled || t.Enabled
		runnable = runnable || t.Enabled
	}
	switch {
	case e.returned && live > 0 && !runnable:
		// The checked function returned, what could still run ran, and
		// time passed for the timers and sleepers left (a few times
		// each): the goroutines blocked are leaked, unless a timer or a
		// sleeping goroutine left may still wake them.
		leaked, note := e.leakedNow()
		if len(leaked) > 0 {
			if e.cannotJudge(leaked, "the checked function returned while") {
				return
			}
			e.blocked = leaked
			e.finish(&search.Outcome{Kind: search.Leak, Message: leakMessage(leaked), Where: e.blockedKey(leaked)}, false)
			return
		}
		msg := "the checked function returned"
		if e.skipped {
			msg = "the test skipped itself (t.Skip)"
		}
		e.finish(&search.Outcome{Kind: search.Exited, Message: msg + note + e.spinNote()}, false)
	case live == 0:
		e.finish(&search.Outcome{Kind: search.Exited, Message: "all threads finished"}, true)
	case !anyEnabled:
		stuck := e.programBlocked()
		spinning := e.spinningNow()
		if e.cannotJudge(append(stuck, spinning...), "no thread can go on:") {
			return
		}
		if len(spinning) > 0 {
			// Some thread spins for ever: nothing left can write what
			// its loop reads.
			e.blocked = append(spinning, stuck...)
			e.finish(&search.Outcome{Kind: search.Livelock, Message: e.spinMessage(spinning, stuck),
				Where: e.blockedKey(e.blocked)}, false)
			return
		}
		e.blocked = stuck
		e.finish(&search.Outcome{Kind: search.Deadlock, Message: deadlockMessage(e.blocked),
			Where: e.blockedKey(e.blocked)}, false)
	}
}

// cannotJudge reports whether the runtime knows of code outside the model
// that may wake the blocked threads bs (Outsider), and then records the
// error the step returns: when, says what the model sees ("no thread can
// go on:").
func (e *Execution) cannotJudge(bs []Blocked, when string) bool {
	why := e.outside
	if o, ok := e.c.rt.(Outsider); ok {
		why = o.Outside()
	}
	if why == "" {
		return false
	}
	ids := blockedIDs(bs)
	blocked := "thread " + strings.Join(ids, ", ") + " is blocked"
	if len(ids) > 1 {
		blocked = "threads " + strings.Join(ids, ", ") + " are blocked"
	}
	e.err = fmt.Errorf("%w: %s %s, but %s", search.ErrCannotJudge, when, blocked, why)
	return true
}

// pendingThreads appends to dst the live threads that have a pending
// operation, as the model sees them now.
func (e *Execution) pendingThreads(dst []search.Thread) []search.Thread {
	for tid := 1; tid <= e.w.NumThreads(); tid++ {
		if e.w.Finished(tid) {
			continue
		}
		op, ok := e.w.Annotated(tid)
		if !ok {
			continue
		}
		dst = append(dst, search.Thread{ID: tid, Op: op, Enabled: e.w.Enabled(tid), Alternatives: e.w.Choices(tid)})
	}
	return dst
}

// noteTimeout records, when thread tid took a timer's time in a select
// (op, with result res) while another case was ready too (otherReady) or
// other threads of the program could still run, which ones could.
func (e *Execution) noteTimeout(tid int, op *syncmodel.Op, res syncmodel.Result, otherReady bool) {
	if e.earlyTimeout != nil {
		// Only a failure in the transition that follows counts.
		delete(e.earlyTimeout, tid)
	}
	if op.Kind != syncmodel.Select && op.Kind != syncmodel.ChanWake || len(op.Cases) < 2 {
		return
	}
	r := syncmodel.DecodeChanResult(res.Code)
	if r.Via == syncmodel.ViaParked || r.Via == syncmodel.ViaDefault || r.Case < 0 || r.Case >= len(op.Cases) {
		return
	}
	if c := op.Cases[r.Case]; c.Send || !e.w.TimerChannel(c.Chan) {
		return
	}
	var running []int
	for t := 1; t <= e.w.NumThreads(); t++ {
		if p, ok := e.w.Pending(t); ok && t != tid && !e.w.Finished(t) && p.API != syncmodel.APITimerFire && e.w.Enabled(t) {
			running = append(running, t)
		}
	}
	if len(running) == 0 && !otherReady {
		return
	}
	if e.earlyTimeout == nil {
		e.earlyTimeout = make(map[int][]int)
	}
	e.earlyTimeout[tid] = running
}

// watchdog returns the outcome of an assertion failure f in the transition
// in which its thread took a timeout while other goroutines could still
// run (the test's own "took too long" in a select on time.After): not a
// bug of the program, but of a machine too slow for the test's timeout.
// nil for any other failure.
func (e *Execution) watchdog(f *wire.Failure) *search.Outcome {
	running, ok := e.earlyTimeout[f.Tid]
	if !ok || f.Kind != wire.FailUser && f.Kind != wire.FailAssert {
		return nil
	}
	why := "another case of its select was ready too"
	if len(running) > 0 {
		ids := make([]string, len(running))
		for i, t := range running {
			ids[i] = fmt.Sprint(t)
		}
		why = fmt.Sprintf("%s %s could still run", plural(len(ids), "thread", "threads"), strings.Join(ids, ", "))
	}
	return &search.Outcome{Kind: search.Exited, Message: fmt.Sprintf(
		"thread %d failed after its timeout fired while %s: a machine that slow fails the test, the program is not wrong (%s)",
		f.Tid, why, f.Message)}
}

// lateFireBound is how many timer waits each goroutine may run after the
// checked function returned: time goes on after a test, and a goroutine
// that sleeps or a timer that fires then may still log to the finished
// test (a misuse) or wake a goroutine that would otherwise be leaked. A
// loop that waits for time (a ticker, a poll) is cut there.
const lateFireBound = 2

// programBlocked returns the blocked threads but the goroutines of
// timers offering a time that nobody takes (a timer left behind is not a
// goroutine of the program).
func (e *Execution) programBlocked() []Blocked {
	bs := e.blockedNow(0)
	kept := bs[:0]
	for _, b := range bs {
		if b.Op.API != syncmodel.APITimerFire {
			kept = append(kept, b)
		}
	}
	return kept
}

// leakedNow judges, once the checked function returned and nothing can
// run, which goroutines are leaked, as Go's goroutine leak profile does:
// those blocked for good, which nothing left can wake. A goroutine that
// waits on the channel of a timer still to fire is not leaked; nor is any
// while a timer or a goroutine still waits for time (after lateFireBound
// waits each), which may wake it: then note says so and none is reported.
func (e *Execution) leakedNow() (leaked []Blocked, note string) {
	blocked := e.programBlocked()
	if len(blocked) == 0 {
		return nil, ""
	}
	var feeds []uint64
	waiting := 0 // goroutines still waiting for time
	for tid := 1; tid <= e.w.NumThreads(); tid++ {
		if op, ok := e.w.Pending(tid); ok && !e.w.Finished(tid) && op.Kind == syncmodel.TimerWait {
			waiting++
			if op.Obj != 0 {
				feeds = append(feeds, op.Obj)
			}
		}
	}
	if waiting == 0 {
		return blocked, ""
	}
	rescued := 0
	for _, b := range blocked {
		for _, ch := range feeds {
			if waitsOnChannel(b.Op, ch) {
				rescued++
				break
			}
		}
	}
	return nil, fmt.Sprintf(" (%d %s blocked when it returned, %d of them on a timer's channel; %d %s for time, which may wake them)",
		len(blocked), plural(len(blocked), "goroutine", "goroutines"), rescued, waiting, plural(waiting, "waits", "wait"))
}

// waitsOnChannel reports whether the blocked operation op waits on channel
// ch: a receive or send on it, or a select with a case on it.
func waitsOnChannel(op syncmodel.Op, ch uint64) bool {
	if op.Cases != nil {
		for _, c := range op.Cases {
			if c.Chan == ch {
				return true
			}
		}
		return false
	}
	switch op.Kind {
	case syncmodel.ChanSend, syncmodel.ChanRecv, syncmodel.ChanWake:
		return op.Obj == ch
	}
	return false
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (e *Execution) blockedNow(except int) []Blocked {
	var out []Blocked
	for _, tid := range e.w.Blocked() {
		if tid == except {
			continue
		}
		op, _ := e.w.Pending(tid)
		out = append(out, Blocked{Thread: tid, Op: op, Frames: e.PendingFrames(tid), Wait: e.w.WaitFor(tid)})
	}
	return out
}

func (e *Execution) blockedKey(bs []Blocked) string {
	keys := make([]string, len(bs))
	for i, b := range bs {
		keys[i] = b.Op.API.String() + "@" + e.where(b.Frames)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

// blockedIDs lists the thread numbers of bs, as messages name them.
func blockedIDs(bs []Blocked) []string {
	ids := make([]string, len(bs))
	for i, b := range bs {
		ids[i] = fmt.Sprint(b.Thread)
	}
	return ids
}

func deadlockMessage(bs []Blocked) string {
	ids := blockedIDs(bs)
	if len(ids) == 1 {
		return "no thread can go on: thread " + ids[0] + " is blocked"
	}
	return "no thread can go on: threads " + strings.Join(ids, ", ") + " are blocked"
}

func leakMessage(bs []Blocked) string {
	ids := blockedIDs(bs)
	if len(ids) == 1 {
		return "the program exited while thread " + ids[0] + " was blocked forever"
	}
	return "the program exited while threads " + strings.Join(ids, ", ") + " were blocked forever"
}

func (e *Execution) finish(o *search.Outcome, clean bool) {
	if e.outcome != nil {
		return
	}
	o.Step = len(e.trace)
	e.outcome = o
	if o.Kind != search.Deadlock {
		// The threads left with a pending operation are what the end
		// made impossible: a timer that will never fire, a goroutine
		// that never started, what an exit or a failure cut short. A
		// reducing search must see them (search.Report.Final): each
		// races with what ran before the end. (A deadlock keeps its
		// threads as settle listed them, all blocked; the room is kept
		// for the next execution.)
		e.threads = e.pendingThreads(e.threads[:0])
	}
	if !e.ended {
		e.ended = true
		e.c.rt.End(clean)
	}
}

// Close implements search.Execution.
func (e *Execution) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	if !e.ended {
		e.ended = true
		e.c.rt.End(false)
	}
	return nil
}
