package syncmodel

import (
	"maps"
	"slices"
)

// Virtual time: TimerWait, and the rules by which time passes. Time is
// dependent on everything (see Dependent): it may pass between two
// operations, and who may run then decides whether it may.
//
// The rule (docs/go.md, "Virtual time"): time passes when a TimerWait
// runs, to its time if that is later than now, and a TimerWait may run
// once no earlier one is pending, no timer is delivering its time, no Stop
// or Reset is under way, no goroutine that time woke is still running at
// the instant it woke, fairness does not hold it back (fair.go), and no
// goroutine that can run would be stalled longer than the stall bound
// (SetMaxStall): a goroutine that became able to run at time s holds time
// below s + bound until it runs. With a bound of 0 time passes only when
// every goroutine is blocked or waits for time, as in testing/synctest; a
// larger bound lets a timeout fire while a goroutine that could have
// answered is delayed, as a loaded machine delays it, and each such delay
// is recorded (Stalls) for the report to say. A goroutine about to yield
// (runtime.Gosched, a sleep of no time) polls: it does not hold time back.
// A TimerWait of a goroutine of a testing/synctest bubble waits for the
// bubble's own clock and obeys the bubble's rule instead (bubble.go,
// bubbleTimeMayPass): time passes for it only when every other goroutine
// of its bubble is durably blocked, as with a bound of 0 within the
// bubble, whatever the goroutines outside do; and the rules above that
// hold time still (a timer delivering, a goroutine woken by time) hold
// the clock of the goroutine's bubble, or the clock outside, not both.
// To the clock outside, a goroutine of a bubble whose timer may fire is a
// goroutine that can run (see bubbleTimerDue).

// DefaultMaxStall is the stall bound of a new world, in nanoseconds: the
// longest a goroutine that can run may be kept from running while time
// passes (see SetMaxStall).
const DefaultMaxStall = 50_000_000

// timeState is the world's record of time: the channels of timers (the
// Obj of their TimerWaits), how many threads time woke (thread.hot), how
// many TimerWaits ran so far (for fairness, see fair.go), the time of
// timers, the stall bound, and what the rules need of every thread at
// once, computed when a TimerWait first asks in a state (timeView).
type timeState struct {
	timerChans map[uint64]bool
	hot        int
	waits      uint64
	// now is the time of timers: the latest time a TimerWait let pass,
	// in nanoseconds since the execution began (the runtime's clock of
	// timers moves with it).
	now int64
	// maxStall is the stall bound (SetMaxStall): a setting, kept by
	// Reset.
	maxStall int64
	// view is what the time rules need of all threads in the state
	// where it was computed, valid while viewGen is gen+1; gen moves on
	// with every change of the world. Derived, not state.
	view    timeView
	viewGen uint64
	gen     uint64
}

// timeThread is what time keeps of a thread.
type timeThread struct {
	// hot: time woke the thread (its TimerWait ran, or it received a
	// timer's time) and it has not reached an operation that may wait
	// since: no time passes while it can run (see timeView).
	hot bool
	// ran and waited are the world's count of TimerWaits (timeState.waits)
	// when the thread last performed an operation and when it last
	// performed a TimerWait (0: never). Counting only TimerWaits, which
	// are dependent on everything, keeps two independent operations
	// commuting. Only their order is hashed (see fingerprint).
	ran, waited uint64
	// since is the time of timers when the thread became able to run:
	// when it last performed an operation, was created, or, if it was
	// blocked when time last passed, that time (it became able to run
	// after). Time may pass while it can run only up to since plus the
	// stall bound.
	since int64
}

// timeView is what the time rules need of every thread of a state: the
// earliest pending TimerWait, whether anything holds time still, and the
// earliest since and ran of the threads that can run. Computed in one pass
// over the threads, it makes a TimerWait's enabledness cost nothing more
// per thread: a state with a thousand timers costs a pass, not a thousand.
type timeView struct {
	minWait  int64 // the earliest time of a pending TimerWait (maxTime: none)
	still    bool  // time may not pass at all now (see timeView's computation)
	minSince int64 // the earliest since of a thread that can run and holds time back (maxTime: none)
	minRan   uint64
	anyRan   bool // some thread that can run, not waiting for time (minRan is the least of their ran)
	// bubbles are the same of the clocks of bubbles (minWait and still
	// above are those of the clock outside them), one per bubble with a
	// live thread.
	bubbles []bubbleView
}

// bubbleView is what the time rules need of the threads of a bubble: the
// earliest pending TimerWait on its clock and whether its clock stands
// still (as timeView's).
type bubbleView struct {
	id      uint64
	minWait int64
	still   bool
}

// of returns the view of bubble id (that of a bubble with no pending
// operation if it has none).
func (v *timeView) of(id uint64) bubbleView {
	for i := range v.bubbles {
		if v.bubbles[i].id == id {
			return v.bubbles[i]
		}
	}
	return bubbleView{id: id, minWait: maxTime}
}

// bubble returns the view of bubble id, added if it has none yet, while
// the view is computed.
func (v *timeView) bubble(id uint64) *bubbleView {
	for i := range v.bubbles {
		if v.bubbles[i].id == id {
			return &v.bubbles[i]
		}
	}
	v.bubbles = append(v.bubbles, bubbleView{id: id, minWait: maxTime})
	return &v.bubbles[len(v.bubbles)-1]
}

const maxTime = int64(^uint64(0) >> 1)

// timePrim is the primitive of TimerWait.
type timePrim struct{ basePrim }

func (*timePrim) kinds() []kindSpec {
	return []kindSpec{{kind: TimerWait, mayWait: true}}
}

func (*timePrim) enabled(w *World, tid int, op *Op) bool {
	if w.threads[tid-1].bubble != 0 {
		v := w.timeView()
		return w.bubbleTimerDue(tid, v) && w.fair(tid, v)
	}
	return w.earliestTimer(tid, op.Arg)
}

func (*timePrim) exec(w *World, tid int, op *Op, _ int) (Result, string, error) {
	if b := w.threads[tid-1].bubble; b != 0 {
		// The bubble's clock: nothing else moves.
		if bb := w.bubbles[b]; bb != nil && op.Arg > bb.now {
			bb.now = op.Arg
		}
		return Result{}, "", nil
	}
	if op.Arg > w.now {
		w.pass(tid, op.Arg)
	}
	return Result{}, "", nil
}

func (*timePrim) fingerprint(w *World, f fp) fp {
	f.n(w.hot)
	f.keys(w.timerChans)
	f.i(w.maxStall)
	f.i(w.now)
	for i := range w.threads {
		th := &w.threads[i]
		f.b(th.hot)
		// What the stall bound asks of a thread that can run: how long
		// it has been able to (relative to now, as TimerWaits' times
		// are compared with now too: the absolute times are in the
		// pending operations).
		f.i(w.now - th.since)
	}
	// Fairness: which threads have run since each thread's last
	// TimerWait (the counts themselves differ between schedules that
	// reach the same state). The order of every ran and waited count
	// says it: their ranks among one another, ties kept.
	type mark struct {
		v      uint64
		waited bool
		i      int
	}
	var marks []mark
	for i := range w.threads {
		t := &w.threads[i]
		marks = append(marks, mark{v: t.ran, i: i})
		if t.waited != 0 && !t.finished {
			marks = append(marks, mark{v: t.waited, waited: true, i: i})
		}
	}
	// Sort by value, a waited count before the ran counts equal to it
	// (ran >= waited: ran counts as having run since).
	slices.SortFunc(marks, func(a, b mark) int {
		switch {
		case a.v != b.v:
			if a.v < b.v {
				return -1
			}
			return 1
		case a.waited != b.waited:
			if a.waited {
				return -1
			}
			return 1
		}
		return a.i - b.i
	})
	rank := 0
	for k := range marks {
		if k > 0 && (marks[k].v != marks[k-1].v || marks[k].waited != marks[k-1].waited) {
			rank++
		}
		f.n(marks[k].i)
		f.b(marks[k].waited)
		f.n(rank)
	}
	return f
}

func (*timePrim) clone(dst, src *World) { dst.timerChans = maps.Clone(src.timerChans) }

func (*timePrim) reset(w *World) {
	clear(w.timerChans)
	w.timeState = timeState{timerChans: w.timerChans, maxStall: w.maxStall}
}

// SetMaxStall sets the stall bound, in nanoseconds: time may pass while a
// goroutine can run only until that goroutine has been able to run for
// this long (see the top of this file). 0 lets time pass only when every
// goroutine is blocked or waits for time; a negative bound lets it pass at
// any time. A new world's bound is DefaultMaxStall; Reset keeps it.
func (w *World) SetMaxStall(ns int64) {
	w.maxStall = ns
	w.changed()
}

// MaxStall returns the stall bound (SetMaxStall).
func (w *World) MaxStall() int64 { return w.maxStall }

// Now returns the time of timers outside bubbles: the latest time a
// TimerWait of a goroutine outside every bubble of testing/synctest let
// pass, in nanoseconds since the execution began. (A bubble's clock is
// its own: see bubble.go.)
func (w *World) Now() int64 { return w.now }

// A Stall is a delay of a thread that has not run since: thread Thread has
// been able to run since time Since, and time has passed since to now, At.
// (The delay an operation ended is its Result.Stall.)
type Stall struct {
	Thread    int
	Since, At int64
}

// Stalls returns the delays of the threads that can run now and have not
// since time passed: each has been kept from running that long.
func (w *World) Stalls() []Stall {
	var out []Stall
	for i := range w.threads {
		th := &w.threads[i]
		if !th.finished && th.hasPending && w.now > th.since && w.holdsTime(i+1, th) {
			out = append(out, Stall{Thread: i + 1, Since: th.since, At: w.now})
		}
	}
	return out
}

// changed moves the world's generation on: what was computed of the
// last state (timeView) is stale.
func (w *World) changed() { w.gen++ }

// TimerChannel reports whether channel ch is a timer's (a TimerWait named
// it).
func (w *World) TimerChannel(ch uint64) bool { return w.timerChans[ch] }

// timePending notes what the operation thread th has just reported does
// to time: a TimerWait names its timer's channel, and a thread woken by
// time stops running at the instant it woke when it reaches an operation
// that may wait.
func (w *World) timePending(th *thread) {
	w.changed()
	op := &th.pending
	if op.Kind == TimerWait && op.Obj != 0 {
		if w.timerChans == nil {
			w.timerChans = make(map[uint64]bool)
		}
		w.timerChans[op.Obj] = true
	}
	if th.hot && mayWait(op.Kind) {
		w.cool(th)
	}
}

// cool ends the time a thread woken by time runs in.
func (w *World) cool(th *thread) {
	th.hot = false
	w.hot--
}

// mayWait reports whether an operation of kind k may wait for something
// else than a lock, or polls (kindSpec.mayWait): a thread woken by time
// that reaches one stops running at the instant it woke (see
// timeView). A lock is held for a while by a thread that will release
// it, while a channel, a condition, a wait group or a join may wait for
// ever (as Go's testing/synctest tells blocking apart). It depends on the
// kind alone, not on the state, so that whether a thread still runs at
// that instant depends only on its own operations: two schedules of one
// trace agree on it.
func mayWait(k Kind) bool { return infoOf(k).mayWait }

// pass lets time pass to at, for thread tid's TimerWait: a thread that
// cannot run now (a goroutine of a bubble whose timer is not due counts
// as one) becomes able to only after, at at or later.
func (w *World) pass(tid int, at int64) {
	for i := range w.threads {
		th := &w.threads[i]
		if i+1 == tid || th.finished || !th.hasPending {
			continue
		}
		if th.pending.Kind == TimerWait {
			if th.bubble != 0 && !w.bubbleTimerDue(i+1, w.timeView()) {
				th.since = at
			}
			continue
		}
		if !w.enabled(i+1, &th.pending) {
			th.since = at
		}
	}
	w.now = at
}

// heat records what time did to thread tid by the operation op it just
// performed, with result *res: a thread is woken by time when its own
// TimerWait ran or when it received from a timer's channel; it stops
// running at that instant when it reaches an operation that may wait (see
// mayWait), or finishes. The thread can run from now on; res.Stall is how
// long it could have run before, while time passed.
func (w *World) heat(tid int, op *Op, res *Result) {
	w.changed()
	th := &w.threads[tid-1]
	if w.now > th.since && (holdsTime(op.Kind) || op.Kind == TimerWait && th.bubble != 0) {
		res.Stall = w.now - th.since
	}
	th.since = w.now
	if noProgress(op.Kind) {
		w.waits++
		th.waited = w.waits
	}
	th.ran = w.waits
	woken := op.Kind == TimerWait
	if !woken && len(w.timerChans) > 0 {
		switch op.Kind {
		case ChanRecv:
			woken = w.timerChans[op.Obj]
		case Select, ChanWake:
			if r := DecodeChanResult(res.Code); r.Via != ViaDefault && r.Via != ViaParked && r.Case >= 0 && r.Case < len(op.Cases) {
				if c := op.Cases[r.Case]; !c.Send {
					woken = w.timerChans[c.Chan]
				}
			}
		}
	}
	switch {
	case woken && !th.hot && !th.finished:
		th.hot = true
		w.hot++
	case th.hot && th.finished:
		w.cool(th)
	}
}

// holdsTime reports whether a thread about to perform an operation of
// kind k, and able to, holds time back (within the stall bound): not a
// TimerWait, which waits for time, nor a Yield or Sleep, which poll.
func holdsTime(k Kind) bool { return k != TimerWait && k != Yield && k != Sleep }

// holdsTime reports whether thread tid (th, live, with a pending
// operation) holds time back now: it can run, and its operation does; or
// it belongs to a bubble and its timer is due.
func (w *World) holdsTime(tid int, th *thread) bool {
	if th.pending.Kind == TimerWait && th.bubble != 0 {
		return w.bubbleTimerDue(tid, w.timeView())
	}
	return holdsTime(th.pending.Kind) && w.enabled(tid, &th.pending)
}

// earliestTimer reports whether thread tid's TimerWait for at may run:
// time may pass to at (see timeView), and fairness does not hold the
// thread back (fair.go: a thread that waited for time before waits until
// every thread that can run now has run since).
func (w *World) earliestTimer(tid int, at int64) bool {
	v := w.timeView()
	if v.still || at > v.minWait {
		return false
	}
	if at > w.now && w.maxStall >= 0 && v.minSince != maxTime && at-v.minSince > w.maxStall {
		return false
	}
	return w.fair(tid, v)
}

// fair is fairness's rule for thread tid's TimerWait (fair.go): a thread
// that waited for time before waits until every thread that can run now
// has run since.
func (w *World) fair(tid int, v *timeView) bool {
	me := &w.threads[tid-1]
	return me.waited == 0 || !v.anyRan || v.minRan >= me.waited
}

// bubbleTimerDue reports whether the TimerWait of thread tid, of a
// bubble, may run as far as its bubble's clock decides (fairness aside):
// it is the earliest on that clock, nothing holds that clock still, and
// the bubble's rule lets time pass (bubbleTimeMayPass).
func (w *World) bubbleTimerDue(tid int, v *timeView) bool {
	th := &w.threads[tid-1]
	bv := v.of(th.bubble)
	if bv.still || th.pending.Arg > bv.minWait {
		return false
	}
	return w.bubbleTimeMayPass(tid)
}

// timeView returns what the time rules need of the threads in the current
// state, computing it on the first call in a state. Time may not pass at
// all (still) while a thread has a pending Select of API APITimerFire (a
// timer that fired has still to deliver its time: the time is there in
// the instant the timer fires) or APITimerHalt (the step exists to order
// Stops and Resets, and adds no instant at which time could pass), or a
// Select of API APITimerStop or its wake (a Stop or Reset under way takes
// an instant, in which its ticker does not tick again), or while a thread
// that time woke can still run at that instant (thread.hot: a goroutine
// wakes from a sleep, or a timer's time, at that time; however slow the
// other goroutines are, it is not), or while a thread can take a timer's
// time now (timeReady: a goroutine waiting for a timer wakes when it
// fires).
func (w *World) timeView() *timeView {
	if w.viewGen == w.gen+1 {
		return &w.view
	}
	v := timeView{minWait: maxTime, minSince: maxTime}
	bubbled := false
	for i := range w.threads {
		th := &w.threads[i]
		if th.finished || !th.hasPending {
			continue
		}
		// The clock th's rules are about: its bubble's, or the one
		// outside.
		minWait, still := &v.minWait, &v.still
		if th.bubble != 0 {
			bv := v.bubble(th.bubble)
			minWait, still = &bv.minWait, &bv.still
		}
		p := &th.pending
		if p.Kind == TimerWait {
			*minWait = min(*minWait, p.Arg)
			bubbled = bubbled || th.bubble != 0
			continue
		}
		if p.Kind == Select && (p.API == APITimerFire || p.API == APITimerHalt) ||
			p.API == APITimerStop && (p.Kind == Select || p.Kind == ChanWake) || w.timeReady(th) {
			*still = true
		}
		if !w.enabled(i+1, p) {
			continue
		}
		if th.hot {
			*still = true
		}
		if !v.anyRan || th.ran < v.minRan {
			v.minRan, v.anyRan = th.ran, true
		}
		if holdsTime(p.Kind) {
			v.minSince = min(v.minSince, th.since)
		}
	}
	if bubbled {
		// A goroutine of a bubble whose timer is due runs at once, as far
		// as the clock outside knows: Go fires it without waiting.
		for i := range w.threads {
			th := &w.threads[i]
			if th.bubble != 0 && !th.finished && th.hasPending && th.pending.Kind == TimerWait && w.bubbleTimerDue(i+1, &v) {
				v.minSince = min(v.minSince, th.since)
			}
		}
	}
	w.view, w.viewGen = v, w.gen+1
	return &w.view
}

// timeReady reports whether thread th can take a timer's time now: its
// pending receive (or select, or the wake of one that parked) finds a
// timer's time on offer, in a timer's buffer, or delivered. Time stands
// still until it has: a goroutine waiting for a timer wakes when it fires.
func (w *World) timeReady(th *thread) bool {
	if len(w.timerChans) == 0 {
		return false
	}
	op := &th.pending
	switch op.Kind {
	case ChanRecv:
		return w.timerChans[op.Obj] && w.caseReady(plainCase(*op))
	case Select:
		for _, c := range op.Cases {
			if !c.Send && w.timerChans[c.Chan] && w.caseReady(c) {
				return true
			}
		}
	case ChanWake:
		if r := DecodeChanResult(th.wakeCode); th.woken && r.Case >= 0 && r.Case < len(th.nextCases) {
			c := th.nextCases[r.Case]
			return !c.Send && w.timerChans[c.Chan]
		}
	}
	return false
}
