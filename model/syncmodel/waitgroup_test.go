package syncmodel

import "testing"

func TestWaitGroup(t *testing.T) {
	add := func(d int64) Op { return o(WGAdd, wg, d) }
	wait := o(WGWait, wg, 0)
	runScenarios(t, []scenario{
		{
			name: "wait on a zero counter returns",
			steps: []step{
				{tid: 1, op: wait, code: WaitReturned},
				{tid: 1, op: add(2)},
				{tid: 1, op: add(-2)},
				{tid: 1, op: wait, code: WaitReturned},
			},
		},
		{
			name: "wait waits, disabled, until the counter reaches zero",
			steps: cat(threads(3), []step{
				{tid: 1, op: add(2)},
				{tid: 1, op: wait, blocked: true},
				{tid: 3, op: wait, blocked: true},
				{tid: 2, op: add(-1)},
				{tid: 1, blocked: true},
				{tid: 2, op: add(-1)},
				{tid: 3, code: WaitReturned},
				{tid: 1, code: WaitReturned},
			}),
		},
		{
			// Go stores the negative counter, then panics; a deferred
			// recover may take the panic. Every later Add that leaves it
			// negative panics again, and a Wait waits for zero.
			name: "negative counter panics",
			steps: cat(threads(2), []step{
				{tid: 1, op: add(1)},
				{tid: 1, op: add(-2), code: GoPanics},
				{tid: 2, op: wait, blocked: true},
				{tid: 1, op: add(-1), code: GoPanics},
				{tid: 2, blocked: true},
				{tid: 1, op: add(2)},
				{tid: 2, code: WaitReturned},
			}),
		},
		{
			// Go panics ("WaitGroup is reused before previous Wait has
			// returned") or, under the race detector, reports the Add's
			// race with the Wait.
			name: "an Add at zero before the released waiter returned is a misuse",
			steps: cat(threads(2), []step{
				{tid: 1, op: add(1)},
				{tid: 1, op: wait, blocked: true},
				{tid: 2, op: add(-1)},
				{tid: 2, op: add(1), misuse: "an Add from zero must happen before the Wait"},
			}),
		},
		{
			name: "a Wait at zero while another thread is about to Add is a misuse",
			steps: cat(threads(2), []step{
				{tid: 2, op: add(1), hold: true},
				{tid: 1, op: wait, misuse: "thread 2's Add(1) with the counter at zero and thread 1's Wait"},
			}),
		},
		{
			name: "an Add ordered before the Wait by the thread itself, or after it returned, is not",
			steps: cat(threads(2), []step{
				{tid: 1, op: add(1)},
				{tid: 2, op: wait, blocked: true},
				{tid: 1, op: add(-1)},
				{tid: 2, code: WaitReturned},
				{tid: 2, op: add(1)},
				{tid: 1, op: wait, blocked: true},
				{tid: 2, op: add(-1)},
				{tid: 1, code: WaitReturned},
			}),
		},
	})
}

func TestGoCond(t *testing.T) {
	wait := o(GoCondWait, gcv, 0)
	wake := o(GoCondWake, gcv, 0)
	signal := o(CondSignal, gcv, 0)
	broadcast := o(CondBroadcast, gcv, 0)
	runScenarios(t, []scenario{
		{
			name: "signal between registration and wait counts",
			steps: cat(threads(2), []step{
				{tid: 1, op: wait},
				{tid: 2, op: signal},
				{tid: 1, op: wake},
			}),
		},
		{
			name: "signal wakes the oldest waiter",
			steps: cat(threads(3), []step{
				{tid: 2, op: wait},
				{tid: 1, op: wait},
				{tid: 2, op: wake, blocked: true},
				{tid: 1, op: wake, blocked: true},
				{tid: 3, op: signal},
				{tid: 1, blocked: true},
				{tid: 2},
				{tid: 3, op: signal},
				{tid: 1},
			}),
		},
		{
			name: "signal without waiters is lost",
			steps: []step{
				{tid: 1, op: signal},
				{tid: 1, op: wait},
				{tid: 1, op: wake, blocked: true},
			},
		},
		{
			name: "broadcast wakes every waiter",
			steps: cat(threads(3), []step{
				{tid: 1, op: wait},
				{tid: 2, op: wait},
				{tid: 3, op: broadcast},
				{tid: 2, op: wake},
				{tid: 1, op: wake},
			}),
		},
		{
			name: "broadcast does not wake later waiters",
			steps: cat(threads(2), []step{
				{tid: 2, op: broadcast},
				{tid: 1, op: wait},
				{tid: 1, op: wake, blocked: true},
			}),
		},
		{
			name: "with a Go mutex as the Locker",
			steps: cat(threads(2), []step{
				{tid: 1, op: o(GoMutexLock, gm, 0)},
				{tid: 1, op: wait},
				{tid: 1, op: o(GoMutexUnlock, gm, 0)},
				{tid: 1, op: wake, blocked: true},
				{tid: 2, op: o(GoMutexLock, gm, 0)},
				{tid: 2, op: signal},
				{tid: 2, op: o(GoMutexUnlock, gm, 0)},
				{tid: 1},
				{tid: 1, op: o(GoMutexLock, gm, 0)},
			}),
		},
	})
}
