package syncmodel

import "maps"

// Virtual time: TimerWait, and the rules by which time passes. Time is
// dependent on everything (see Dependent): it passes between any two
// operations.

// timeState is the world's record of time: the channels of timers (the
// Obj of their TimerWaits), how many threads time woke (thread.hot), and
// how many TimerWaits ran so far (for fairness, see fairWait).
type timeState struct {
	timerChans map[uint64]bool
	hot        int
	waits      uint64
}

// timeThread is what time keeps of a thread.
type timeThread struct {
	// hot: time woke the thread (its TimerWait ran, or it received a
	// timer's time) and it has not reached an operation that may wait
	// since: no time passes while it can run (see earliestTimer).
	hot bool
	// ran and waited are the world's count of TimerWaits (timeState.waits)
	// when the thread last performed an operation and when it last
	// performed a TimerWait (0: never). Counting only TimerWaits, which
	// are dependent on everything, keeps two independent operations
	// commuting. Only their order is hashed (see fairWait).
	ran, waited uint64
}

// timePrim is the primitive of TimerWait.
type timePrim struct{ basePrim }

func (*timePrim) kinds() []kindSpec {
	return []kindSpec{{kind: TimerWait, mayWait: true}}
}

func (*timePrim) enabled(w *World, tid int, op *Op) bool {
	return w.earliestTimer(tid, op.Arg) && w.bubbleTimeMayPass(tid)
}

func (*timePrim) exec(w *World, _ int, op Op, _ int) (Result, string, error) {
	w.timeReached(op.Arg)
	return Result{}, "", nil
}

func (*timePrim) fingerprint(w *World, f fp) fp {
	f.n(w.hot)
	f.keys(w.timerChans)
	for i := range w.threads {
		f.b(w.threads[i].hot)
	}
	// Fairness: which threads have run since each thread's last
	// TimerWait (the step counts themselves differ between schedules that
	// reach the same state).
	for i := range w.threads {
		t := &w.threads[i]
		if t.waited == 0 || t.finished {
			continue
		}
		f.n(i)
		for j := range w.threads {
			f.b(w.threads[j].ran >= t.waited)
		}
	}
	return f
}

func (*timePrim) clone(dst, src *World) { dst.timerChans = maps.Clone(src.timerChans) }

func (*timePrim) reset(w *World) {
	clear(w.timerChans)
	w.timeState = timeState{timerChans: w.timerChans}
}

// TimerChannel reports whether channel ch is a timer's (a TimerWait named
// it).
func (w *World) TimerChannel(ch uint64) bool { return w.timerChans[ch] }

// timePending notes what the operation thread th has just reported does
// to time: a TimerWait names its timer's channel, and a thread woken by
// time stops running at the instant it woke when it reaches an operation
// that may wait.
func (w *World) timePending(th *thread) {
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
// earliestTimer). A lock is held for a while by a thread that will release
// it, while a channel, a condition, a wait group or a join may wait for
// ever (as Go's testing/synctest tells blocking apart). It depends on the
// kind alone, not on the state, so that whether a thread still runs at
// that instant depends only on its own operations: two schedules of one
// trace agree on it.
func mayWait(k Kind) bool { return infoOf(k).mayWait }

// heat records what time did to thread tid by the operation op it just
// performed, with result res: a thread is woken by time when its own
// TimerWait ran or when it received from a timer's channel; it stops
// running at that instant when it reaches an operation that may wait (see
// mayWait), or finishes.
func (w *World) heat(tid int, op Op, res Result) {
	th := &w.threads[tid-1]
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

// earliestTimer reports whether thread tid's TimerWait for at may run:
// time may pass to at (timeMayPass), and fairness does not hold the
// thread back (see fairWait).
func (w *World) earliestTimer(tid int, at int64) bool {
	if !w.timeMayPass(tid, at) {
		return false
	}
	me := &w.threads[tid-1]
	if me.waited == 0 {
		return true
	}
	for i := range w.threads {
		if i+1 != tid && w.fairWait(me, i+1, &w.threads[i]) {
			return false
		}
	}
	return true
}

// timeMayPass reports whether time may pass to at for thread tid's
// TimerWait: no other live thread has a pending TimerWait earlier than at,
// nor a timer that fired and has still to deliver its time (a pending
// Select of API APITimerFire: the time is there in the instant the timer
// fires), nor a Stop or Reset about to begin or under way (a Select of
// API APITimerHalt: the step exists to order Stops and Resets, and adds
// no instant at which time could pass; a Select of API APITimerStop or
// its wake), nor is a thread that time woke still running at that instant
// (thread.hot: a goroutine wakes from a sleep, or a timer's time, at that
// time; however slow the other goroutines are, it is not).
func (w *World) timeMayPass(tid int, at int64) bool {
	for i := range w.threads {
		th := &w.threads[i]
		if i+1 == tid || th.finished || !th.hasPending {
			continue
		}
		p := &th.pending
		if p.Kind == TimerWait && p.Arg < at || p.Kind == Select && (p.API == APITimerFire || p.API == APITimerHalt) {
			return false
		}
		if p.API == APITimerStop && (p.Kind == Select || p.Kind == ChanWake) {
			// A Stop (or Reset) under way: it takes an instant, in
			// which its ticker does not tick again.
			return false
		}
		if th.hot && w.enabled(i+1, p) || w.timeReady(th) {
			return false
		}
	}
	return true
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
