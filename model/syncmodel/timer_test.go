package syncmodel

import "testing"

// timerCh is a timer's channel.
const timerCh = 0x70a000

func TestTimerWait(t *testing.T) {
	at := func(ns int64) Op { return o(TimerWait, 0, ns) }
	stop := Op{Kind: Select, API: APITimerStop, Cases: []Case{{Send: true, Chan: ch1}, {Chan: ch1 + 1}}}
	runScenarios(t, []scenario{
		{
			name: "the earliest timer fires first",
			steps: cat(threads(3), []step{
				{tid: 2, op: at(2000), hold: true},
				{tid: 3, op: at(1000), hold: true},
				{tid: 3},
				{tid: 2},
			}),
		},
		{
			name: "equal times are both enabled",
			steps: cat(threads(3), []step{
				{tid: 2, op: at(1000), hold: true},
				{tid: 3, op: at(1000), hold: true},
				{tid: 2},
				{tid: 3},
			}),
		},
		{
			// Thread 2 wakes from its sleep at 1000: however slow thread
			// 3 is, thread 2 runs at that instant, until it waits again.
			name: "a thread that time woke runs before time passes further",
			steps: cat(threads(3), []step{
				{tid: 2, op: at(1000), hold: true},
				{tid: 3, op: at(2000), waits: true},
				{tid: 2},
				{tid: 2, op: o(GoMutexLock, gm, 0), hold: true},
				{tid: 3, waits: true},
				{tid: 2},
				{tid: 2, op: o(GoMutexUnlock, gm, 0), hold: true},
				{tid: 3, waits: true},
				{tid: 2},
				{tid: 2, op: o(GoMutexLock, gm+1, 0)},
				{tid: 2, op: at(3000), waits: true}, // sleeps again, after thread 3
				{tid: 3},
			}),
		},
		{
			// Fairness: thread 2 waited for time at 1000 while thread 3
			// could run; it does not wait for time again before thread 3
			// has had its turn (a goroutine polling with sleeps does
			// not starve the one it waits for).
			name: "a thread waits for time again only after the others could run",
			steps: cat(threads(3), []step{
				{tid: 3, op: o(Yield, 0, 0), hold: true},
				{tid: 2, op: at(1000)},
				{tid: 2, op: o(Yield, 0, 0)},
				{tid: 2, op: at(2000), waits: true},
				{tid: 3},
				{tid: 2},
			}),
		},
		{
			// Its first wait is not held back: it races with everything.
			name: "a thread's first wait for time is not held back",
			steps: cat(threads(3), []step{
				{tid: 3, op: o(Yield, 0, 0), hold: true},
				{tid: 2, op: at(1000)},
				{tid: 3},
			}),
		},
		{
			// A blocked thread does not hold a ticker back: its tick is
			// what it waits for.
			name: "a thread that cannot run does not hold time back",
			steps: cat(threads(3), []step{
				{tid: 3, op: recv(ch1, 0), blocked: true},
				{tid: 2, op: at(1000)},
				{tid: 2, op: o(Yield, 0, 0)},
				{tid: 2, op: at(2000)},
			}),
		},
		{
			// Stop takes an instant: while it waits for its ticker's
			// offer (or wakes from that wait), the ticker does not tick
			// again (it would win that race for ever).
			name: "no time passes while a Stop is under way",
			steps: cat(threads(3), []step{
				{tid: 3, op: stop, hold: true},
				{tid: 2, op: at(1000), waits: true},
				{tid: 3, code: parkedCode}, // parks
				{tid: 3, op: Op{Kind: ChanWake, API: APITimerStop, Cases: stop.Cases}, blocked: true},
				{tid: 2, waits: true},
			}),
		},
		{
			name: "it runs until it waits",
			steps: cat(threads(3), []step{
				{tid: 2, op: at(1000), hold: true},
				{tid: 3, op: at(2000), waits: true},
				{tid: 2},
				{tid: 2, op: recv(ch1, 0), blocked: true}, // time passes once the woken thread waits
				{tid: 3},
			}),
		},
		{
			// A lock is held for a while: time may pass while the woken
			// thread waits for one, but once it has the lock, it runs.
			name: "a lock is not a wait",
			steps: cat(threads(4), []step{
				{tid: 1, op: o(GoMutexLock, gm, 0)},
				{tid: 2, op: at(1000), hold: true},
				{tid: 3, op: at(2000), waits: true},
				{tid: 4, op: at(3000), waits: true},
				{tid: 2},
				{tid: 2, op: o(GoMutexLock, gm, 0), blocked: true},
				{tid: 3}, // the holder of the lock is slow
				{tid: 1, op: o(GoMutexUnlock, gm, 0)},
				{tid: 4, waits: true},
				{tid: 2},
				{tid: 2, op: o(Yield, 0, 0)},
				{tid: 4},
			}),
		},
		{
			name: "or polls",
			steps: cat(threads(3), []step{
				{tid: 2, op: at(1000), hold: true},
				{tid: 3, op: at(2000), waits: true},
				{tid: 2},
				{tid: 2, op: o(Yield, 0, 0)},
				{tid: 3},
			}),
		},
		{
			name: "a receive of a timer's time wakes a thread too",
			steps: cat(threads(3), []step{
				{tid: 2, op: Op{Kind: TimerWait, Obj: timerCh, Arg: 1000}, hold: true},
				{tid: 2},
				{tid: 2, op: Op{Kind: Select, API: APITimerFire, Cases: []Case{{Send: true, Chan: timerCh, Cap: 1}}, Arg: 1},
					code: ChanResult{Via: ViaBuffer, Case: 0}.Code()},
				{tid: 3, op: at(2000), hold: true},
				{tid: 1, op: Op{Kind: ChanRecv, Obj: timerCh, Arg: 1}, code: ChanResult{Via: ViaBuffer, Case: 0, OK: true}.Code()},
				{tid: 1, op: o(GoMutexLock, gm, 0), hold: true},
				{tid: 3, waits: true},
				{tid: 1},
				{tid: 1, op: o(Yield, 0, 0), hold: true}, // it may wait: the instant is over
				{tid: 3},
			}),
		},
		{
			name: "a timer races with any other operation",
			steps: cat(threads(2), []step{
				{tid: 2, op: at(5000), hold: true},
				{tid: 1, op: o(GoMutexLock, gm, 0), hold: true},
				{tid: 2},
				{tid: 1},
			}),
		},
	})
	w := NewWorld()
	w.SetPending(1, o(TimerWait, 0, 1000))
	if _, err := w.Execute(1, 0); err != nil {
		t.Fatal(err)
	}
	w.SetPending(1, o(ThreadCreate, 0, 0))
	if _, err := w.Execute(1, 0); err != nil {
		t.Fatal(err)
	}
	w.SetPending(1, o(TimerWait, 0, 10))
	w.SetPending(2, o(TimerWait, 0, 20))
	if w.Enabled(2) || len(w.Blocked()) != 0 {
		t.Errorf("a later timer: enabled %v, blocked %v; want disabled but not blocked", w.Enabled(2), w.Blocked())
	}
	if !Dependent(1, o(TimerWait, 0, 1), 2, o(Yield, 0, 0)) || !Dependent(1, o(ChanSend, 7, 0), 2, o(TimerWait, 0, 1)) {
		t.Error("TimerWait must depend on every operation")
	}
}
