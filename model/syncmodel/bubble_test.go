package syncmodel

import (
	"slices"
	"testing"
)

// bub is the bubble of the tests.
const bub = 0x60e000

// TestBubble plays the rules of testing/synctest's bubbles: membership by
// creation, synctest.Wait, time in a bubble, and the end of a bubble with
// its deadlocks.
func TestBubble(t *testing.T) {
	enter := o(BubbleEnter, bub, 0)
	wait := o(BubbleWait, 0, 0)
	end := o(BubbleEnd, bub, 0)
	exit := o(ThreadExit, 0, 0)
	sleep := func(ns int64) Op { return o(TimerWait, 0, ns) }
	// Thread 1 runs synctest.Test: thread 2 is the root of the bubble,
	// which starts thread 3.
	start := []step{
		create(1, 2),
		{tid: 2, op: enter},
		create(2, 3),
	}
	runScenarios(t, []scenario{
		{
			name: "Wait returns once the others are durably blocked",
			steps: cat(start, []step{
				{tid: 3, op: recv(ch1, 0), blocked: true},
				{tid: 2, op: wait},
			}),
		},
		{
			name: "Wait waits for a goroutine that runs",
			steps: cat(start, []step{
				{tid: 3, op: o(Yield, 0, 0), hold: true},
				{tid: 2, op: wait, blocked: true},
				{tid: 3},
				{tid: 3, op: exit},
				{tid: 2},
			}),
		},
		{
			name: "a lock is no durable block",
			steps: cat(start, []step{
				{tid: 1, op: o(GoMutexLock, gm, 0)},
				{tid: 3, op: o(GoMutexLock, gm, 0), blocked: true},
				{tid: 2, op: wait, blocked: true},
				{tid: 1, op: o(GoMutexUnlock, gm, 0)},
				{tid: 3},
				{tid: 3, op: exit},
				{tid: 2},
			}),
		},
		{
			name: "a goroutine of another bubble, or of none, does not count",
			steps: cat(start, []step{
				create(1, 4),
				{tid: 4, op: o(Yield, 0, 0), hold: true},
				{tid: 3, op: sleep(10), waits: true},
				{tid: 2, op: wait},
			}),
		},
		{
			name: "time passes only when the others are durably blocked",
			steps: cat(start, []step{
				{tid: 2, op: o(Yield, 0, 0), hold: true},
				{tid: 3, op: sleep(1000), waits: true},
				{tid: 2},
				{tid: 2, op: recv(ch1, 0), blocked: true},
				{tid: 3},
				{tid: 3, op: send(ch1, 0), code: parkedCode},
				{tid: 2, code: cr(ViaPartner, 0, true, 3, 0)},
			}),
		},
		{
			name: "time does not pass before a Wait returns",
			steps: cat(start, []step{
				{tid: 3, op: sleep(1000), waits: true},
				{tid: 2, op: wait},
				{tid: 3, waits: true},
				{tid: 2, op: exit},
				// The root returned: time stops for its bubble.
				{tid: 3, waits: true},
			}),
		},
		{
			name: "a timer due at the time reached fires before Wait returns",
			steps: cat(start, []step{
				{tid: 3, op: sleep(10), waits: true},
				{tid: 2, op: sleep(10)},
				// Time reached 10: thread 3's timer fired too.
				{tid: 2, op: wait, blocked: true},
				{tid: 3},
				{tid: 3, op: recv(ch1, 0), blocked: true},
				{tid: 2},
			}),
		},
		{
			name: "a bubble's time passes while a goroutine outside can run",
			steps: cat(start, []step{
				create(1, 4),
				{tid: 4, op: o(GoMutexLock, gm, 0), hold: true},
				{tid: 2, op: recv(ch1, 0), blocked: true},
				// The bubble's others are durably blocked: its time
				// passes at once, whatever thread 4 outside does.
				{tid: 3, op: sleep(DefaultMaxStall + 1)},
			}),
			check: clocks(DefaultMaxStall+1, 0),
		},
		{
			name: "a sleeper outside does not wake a sleeper of the bubble",
			steps: cat(start, []step{
				create(1, 4),
				{tid: 2, op: recv(ch1, 0), blocked: true},
				{tid: 3, op: sleep(2000), hold: true},
				// Outside, thread 4's sleep of 1000 runs; the bubble's
				// sleeper of 2000 need not wait for it, nor is it woken
				// by it.
				{tid: 4, op: sleep(1000), hold: true},
				{tid: 3},
				{tid: 4},
			}),
			check: clocks(2000, 1000),
		},
		{
			name: "a sleeper of the bubble does not wake a sleeper outside",
			steps: cat(start, []step{
				create(1, 4),
				{tid: 2, op: recv(ch1, 0), blocked: true},
				{tid: 3, op: sleep(2000)},
				// The bubble's clock reads 2000; outside it reads 0, and
				// thread 4's sleep of 1000 is still a wait for time.
				{tid: 3, op: recv(ch2, 0), blocked: true},
				{tid: 4, op: sleep(1000)},
			}),
			check: clocks(2000, 1000),
		},
		{
			name: "a due timer of the bubble holds the clock outside",
			steps: cat(start, []step{
				create(1, 4),
				{tid: 2, op: recv(ch1, 0), blocked: true},
				{tid: 3, op: sleep(10), hold: true},
				// Thread 3's timer fires at once, as Go fires it: time
				// outside may not pass beyond the stall bound first.
				{tid: 4, op: sleep(DefaultMaxStall + 1), waits: true},
				{tid: 3},
				{tid: 3, op: recv(ch2, 0), blocked: true},
				{tid: 4},
			}),
			check: clocks(10, DefaultMaxStall+1),
		},
		{
			name: "two bubbles keep two clocks",
			steps: cat(start, []step{
				create(1, 4),
				{tid: 4, op: o(BubbleEnter, bub+1, 0)},
				{tid: 2, op: recv(ch1, 0), blocked: true},
				{tid: 3, op: sleep(3000), hold: true},
				{tid: 4, op: sleep(1000)},
				{tid: 3},
			}),
			check: func(t *testing.T, w *World) {
				if got := w.clockOf(4); got != 1000 {
					t.Errorf("the second bubble's clock reads %d, want 1000", got)
				}
				clocks(3000, 0)(t, w)
			},
		},
		{
			name: "a goroutine outside a bubble sleeps as ever",
			steps: cat(start, []step{
				create(1, 4),
				{tid: 3, op: o(Yield, 0, 0), hold: true},
				{tid: 4, op: sleep(1000)},
			}),
		},
		{
			name: "the end waits for every goroutine of the bubble",
			steps: cat(start, []step{
				{tid: 1, op: end, blocked: true},
				{tid: 2, op: exit},
				{tid: 1, blocked: true},
				{tid: 3, op: exit},
				{tid: 1},
			}),
		},
		{
			name: "the end waits for a sleeper while the root runs",
			steps: cat(start, []step{
				{tid: 1, op: end, blocked: true},
				{tid: 3, op: sleep(1000), waits: true},
				{tid: 2, op: wait},
				{tid: 2, op: recv(ch1, 0), blocked: true},
				{tid: 1, blocked: true},
				{tid: 3},
			}),
		},
		{
			name: "a goroutine left blocked after the root returned is a deadlock",
			steps: cat(start, []step{
				{tid: 1, op: end, blocked: true},
				{tid: 3, op: send(ch1, 0), code: parkedCode},
				{tid: 3, op: chwake(ch1), blocked: true},
				{tid: 2, op: exit},
				{tid: 1, misuse: "deadlock in synctest.Test: the bubble's root returned, and its other goroutines are blocked: thread 3 blocked for ever"},
			}),
		},
		{
			name: "a sleeper left after the root returned is a deadlock",
			steps: cat(start, []step{
				{tid: 1, op: end, blocked: true},
				{tid: 3, op: sleep(1000), waits: true},
				{tid: 2, op: exit},
				{tid: 1, misuse: "thread 3 blocked for ever"},
			}),
		},
		{
			name: "every goroutine blocked with no time to pass is a deadlock",
			steps: cat(start, []step{
				{tid: 1, op: end, blocked: true},
				{tid: 3, op: recv(ch1, 0), blocked: true},
				{tid: 2, op: recv(ch2, 0), blocked: true},
				{tid: 1, misuse: "every goroutine of the bubble is blocked: threads 2, 3 blocked for ever"},
			}),
		},
		{
			name: "Wait outside a bubble",
			steps: []step{
				{tid: 1, op: wait, misuse: "synctest.Wait called outside a bubble"},
			},
		},
		{
			name: "two Waits at once",
			steps: cat(start, []step{
				{tid: 3, op: wait, blocked: true},
				{tid: 2, op: wait, misuse: "synctest.Wait called while thread 3 waits in synctest.Wait"},
			}),
		},
		{
			name: "bubbles do not nest",
			steps: cat(start, []step{
				create(3, 4),
				{tid: 4, op: o(BubbleEnter, bub+1, 0), misuse: "bubbles do not nest"},
			}),
		},
		{
			name: "membership is by creation",
			steps: cat(start, []step{
				create(3, 4),
				create(1, 5),
			}),
			check: func(t *testing.T, w *World) {
				var in []int
				for i := range w.threads {
					if w.threads[i].bubble == bub {
						in = append(in, i+1)
					}
				}
				if !slices.Equal(in, []int{2, 3, 4}) {
					t.Errorf("threads %v in the bubble, want 2, 3, 4", in)
				}
			},
		},
	})
}

// TestBubbleDependent checks that the operations of bubbles depend on
// every operation of another thread: their enabledness follows every
// goroutine of the bubble and whatever unblocks one.
func TestBubbleDependent(t *testing.T) {
	for _, k := range []Kind{BubbleEnter, BubbleWait, BubbleEnd} {
		for _, other := range []Op{o(Yield, 0, 0), recv(ch1, 0), o(GoMutexLock, gm, 0), o(ThreadCreate, 0, 0), o(Choose, 0, 2), o(ThreadStart, 0, 0)} {
			if !Dependent(1, o(k, bub, 0), 2, other) || !Dependent(2, other, 1, o(k, bub, 0)) {
				t.Errorf("%s and %s of another thread are independent", k, other.Kind)
			}
		}
	}
}

// clocks returns a check that thread 3's bubble (bub) reads bubble and
// the clock outside reads outside.
func clocks(bubble, outside int64) func(*testing.T, *World) {
	return func(t *testing.T, w *World) {
		t.Helper()
		if got := w.clockOf(3); got != bubble {
			t.Errorf("the bubble's clock reads %d, want %d", got, bubble)
		}
		if got := w.Now(); got != outside {
			t.Errorf("the clock outside reads %d, want %d", got, outside)
		}
	}
}
