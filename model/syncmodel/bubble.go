package syncmodel

import "fmt"

// Bubbles of Go's testing/synctest. synctest.Test runs its function in a
// new goroutine, the root of a bubble; every goroutine a goroutine of the
// bubble starts belongs to it (see inheritBubble), and synctest.Test waits
// until they have all ended. In a bubble:
//
//   - synctest.Wait (BubbleWait) returns once every other goroutine of the
//     bubble is durably blocked: blocked in an operation that only another
//     goroutine of the bubble can end (a channel operation or select, a
//     condition wait, a wait group's Wait, a sleep or a timer), not in a
//     lock, which a goroutine outside could release.
//   - The bubble has a clock of its own (bubble.now), which starts at 0
//     (midnight UTC, 2000-01-01, for the runtime) when the bubble is
//     entered: the TimerWaits of its goroutines wait for it, and only
//     they move it. Time passes on it (a TimerWait of a goroutine of the
//     bubble is enabled) only when every other goroutine of the bubble is
//     durably blocked, none of them is in synctest.Wait (which returns
//     first), and the root has not returned (then time stops). The
//     clock of the goroutines outside (World.now) and those of other
//     bubbles neither move it nor are moved by it: a goroutine outside
//     that sleeps does not wake a sleeper of the bubble, nor the reverse.
//   - Outside the bubble its time passes at once: a goroutine of the
//     bubble whose timer may fire holds the clock outside back as a
//     goroutine that can run does (the stall bound, see time.go), since
//     Go fires it without waiting for any real time.
//   - When every goroutine left in the bubble is durably blocked and time
//     cannot pass for them (the root returned, or none of them waits for
//     time), synctest.Test panics with a deadlock: BubbleEnd is then
//     enabled, and a misuse that names them.
//
// The model does not tell channels made in the bubble from others: a
// goroutine of the bubble blocked on a channel that only a goroutine
// outside could ready is taken as durably blocked, where synctest takes
// it as running.
//
// BubbleWait and BubbleEnd depend on what every goroutine of their bubble
// does and on whatever unblocks one: they are dependent on every
// operation, as Exit is (their class). So is TimerWait already.

// bubble is a bubble of testing/synctest: its root thread and its clock.
type bubble struct {
	root int
	// now is the bubble's time: the latest time a TimerWait of one of
	// its goroutines let pass, in nanoseconds since the bubble began.
	now int64
}

// bubbleState is the world's bubbles, by object (the Obj of BubbleEnter).
// A goroutine of a bubble waiting for a time its bubble's clock has
// reached is not blocked: its timer fired when time reached it.
type bubbleState struct {
	bubbles map[uint64]*bubble
}

// bubbleThread is what a thread keeps of bubbles: the one it belongs to,
// 0 if none.
type bubbleThread struct {
	bubble uint64
}

// bubblePrim is the primitive of testing/synctest's bubbles.
type bubblePrim struct{ basePrim }

func (*bubblePrim) kinds() []kindSpec {
	return []kindSpec{
		{kind: BubbleEnter, class: classExit},
		{kind: BubbleWait, class: classExit, mayWait: true},
		{kind: BubbleEnd, class: classExit, mayWait: true},
	}
}

func (*bubblePrim) check(_ *World, tid int, _ *thread, op Op) error {
	if op.Kind != BubbleWait && op.Obj == 0 {
		return fmt.Errorf("syncmodel: thread %d: %s without a bubble", tid, op)
	}
	return nil
}

func (*bubblePrim) enabled(w *World, tid int, op *Op) bool {
	switch op.Kind {
	case BubbleWait:
		b := w.threads[tid-1].bubble
		if b == 0 || w.bubbleWaiter(b, tid) != 0 {
			return true // a misuse, which exec reports
		}
		_, ok := w.bubbleBlocked(b, tid)
		return ok
	case BubbleEnd:
		if w.bubbles[op.Obj] == nil {
			return false // the root has not entered it yet
		}
		live, ok := w.bubbleBlocked(op.Obj, 0)
		return len(live) == 0 || ok && !w.bubbleTimeCanPass(op.Obj, live)
	}
	return true
}

func (*bubblePrim) exec(w *World, tid int, op *Op, _ int) (Result, string, error) {
	switch op.Kind {
	case BubbleEnter:
		th := &w.threads[tid-1]
		if th.bubble != 0 {
			return done(0, "synctest.Test called in a bubble: bubbles do not nest")
		}
		if w.bubbles[op.Obj] != nil {
			return Result{}, "", fmt.Errorf("syncmodel: thread %d: bubble %#x entered twice", tid, op.Obj)
		}
		put(&w.bubbles, op.Obj, &bubble{root: tid})
		th.bubble = op.Obj
	case BubbleWait:
		b := w.threads[tid-1].bubble
		if b == 0 {
			return done(0, "synctest.Wait called outside a bubble")
		}
		if other := w.bubbleWaiter(b, tid); other != 0 {
			return done(0, fmt.Sprintf("synctest.Wait called while thread %d waits in synctest.Wait: one at a time", other))
		}
	case BubbleEnd:
		if live, _ := w.bubbleBlocked(op.Obj, 0); len(live) > 0 {
			why := "every goroutine of the bubble is blocked"
			if bb := w.bubbles[op.Obj]; bb != nil && w.threads[bb.root-1].finished {
				why = "the bubble's root returned, and its other goroutines are blocked"
			}
			return done(0, fmt.Sprintf("deadlock in synctest.Test: %s: %s blocked for ever", why, threadList(live)))
		}
	}
	return Result{}, "", nil
}

func (*bubblePrim) waitFor(w *World, tid int, op *Op) Wait {
	b := op.Obj
	if op.Kind == BubbleWait {
		b = w.threads[tid-1].bubble
	}
	var running []int
	for i := range w.threads {
		x := &w.threads[i]
		if i+1 != tid && x.bubble == b && !x.finished && !w.durablyBlocked(i+1) {
			running = append(running, i+1)
		}
	}
	if op.Kind == BubbleEnd {
		live, _ := w.bubbleBlocked(b, 0)
		return Wait{Obj: b, What: "bubble", Detail: fmt.Sprintf("the end of %s of the bubble", threadList(live))}
	}
	if len(running) == 0 {
		return Wait{Obj: b, What: "bubble"}
	}
	return Wait{Obj: b, What: "bubble", Detail: fmt.Sprintf("%s of the bubble to block", threadList(running))}
}

// dependent: never asked (the class of every kind is classExit).
func (*bubblePrim) dependent(int, *Op, int, *Op, bool) bool { return true }

func (*bubblePrim) fingerprint(w *World, f fp) fp {
	for _, k := range sortedKeys(w.bubbles) {
		f.u(k)
		f.n(w.bubbles[k].root)
		f.i(w.bubbles[k].now)
	}
	for i := range w.threads {
		f.u(w.threads[i].bubble)
	}
	return f
}

func (*bubblePrim) clone(dst, src *World) { dst.bubbles = cloneMap(src.bubbles, copyOf[bubble]) }

func (*bubblePrim) reset(w *World) { w.bubbleState = bubbleState{bubbles: keepMap(w.bubbles)} }

// inheritBubble makes thread child, just created by thread parent, a
// goroutine of parent's bubble.
func (w *World) inheritBubble(parent, child int) {
	w.threads[child-1].bubble = w.threads[parent-1].bubble
}

// bubbleWaiter returns the thread of bubble b, other than tid, whose
// pending operation is a BubbleWait, 0 if none.
func (w *World) bubbleWaiter(b uint64, tid int) int {
	for i := range w.threads {
		x := &w.threads[i]
		if i+1 != tid && x.bubble == b && !x.finished && x.hasPending && x.pending.Kind == BubbleWait {
			return i + 1
		}
	}
	return 0
}

// bubbleBlocked returns the live threads of bubble b but except, and
// whether they are all durably blocked.
func (w *World) bubbleBlocked(b uint64, except int) (live []int, all bool) {
	all = true
	for i := range w.threads {
		x := &w.threads[i]
		if i+1 == except || x.bubble != b || x.finished {
			continue
		}
		live = append(live, i+1)
		if !w.durablyBlocked(i + 1) {
			all = false
		}
	}
	return live, all
}

// bubbleTimeCanPass reports whether time can pass for the threads live of
// bubble b, all durably blocked: the root has not returned and one of them
// waits for time.
func (w *World) bubbleTimeCanPass(b uint64, live []int) bool {
	bb := w.bubbles[b]
	if bb == nil || w.threads[bb.root-1].finished {
		return false
	}
	for _, tid := range live {
		if w.threads[tid-1].pending.Kind == TimerWait {
			return true
		}
	}
	return false
}

// clockOf returns the time of the clock thread tid's TimerWaits wait
// for: its bubble's, or the world's outside any bubble.
func (w *World) clockOf(tid int) int64 {
	if b := w.threads[tid-1].bubble; b != 0 {
		if bb := w.bubbles[b]; bb != nil {
			return bb.now
		}
	}
	return w.now
}

// bubbleTimeMayPass is the rule of bubbles for the TimerWait of thread
// tid: true for a thread outside any bubble, or for a time its bubble's
// clock already reached (the timer fired then, with others); in a
// bubble, time passes only when every other goroutine of the bubble is
// durably blocked, none is in synctest.Wait, and the root has not
// returned.
func (w *World) bubbleTimeMayPass(tid int) bool {
	b := w.threads[tid-1].bubble
	if b == 0 || w.threads[tid-1].pending.Arg <= w.clockOf(tid) {
		return true // outside a bubble, or no time to pass
	}
	if bb := w.bubbles[b]; bb == nil || w.threads[bb.root-1].finished {
		return false
	}
	if w.bubbleWaiter(b, tid) != 0 {
		return false
	}
	_, ok := w.bubbleBlocked(b, tid)
	return ok
}

// durablyBlocked reports whether live thread tid is blocked in an
// operation that only a goroutine of its bubble can end (see above): a
// sleep or a timer's wait for a time not reached yet, or a channel
// operation, a select,
// a condition wait or a wait group's Wait that is not enabled (or parked,
// its wake not enabled).
func (w *World) durablyBlocked(tid int) bool {
	th := &w.threads[tid-1]
	if !th.hasPending {
		return false
	}
	op := &th.pending
	switch op.Kind {
	case TimerWait:
		return op.Arg > w.clockOf(tid) // not a time reached, when it fires at once
	case ChanSend, ChanRecv, Select, ChanWake, WGWait, WGWake, GoCondWait, GoCondWake, CondWait, CondReacquire:
		return !w.enabled(tid, op)
	}
	return false
}
