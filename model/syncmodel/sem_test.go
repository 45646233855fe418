package syncmodel

import "testing"

func TestSem(t *testing.T) {
	wait := o(SemWait, sm, 0)
	post := o(SemPost, sm, 0)
	get := o(SemGetvalue, sm, 0)
	runScenarios(t, []scenario{
		{
			name: "uninitialised starts at 0",
			steps: cat(threads(2), []step{
				{tid: 1, op: get, code: 0},
				{tid: 1, op: wait, blocked: true},
				{tid: 2, op: post},
				{tid: 2, op: get, code: 1},
				{tid: 1},
				{tid: 1, op: get, code: 0},
			}),
		},
		{
			name: "initial value",
			steps: cat(threads(2), []step{
				{tid: 1, op: o(SemInit, sm, 2)},
				{tid: 1, op: wait},
				{tid: 2, op: wait},
				{tid: 1, op: wait, blocked: true},
				{tid: 2, op: post},
				{tid: 2, op: post},
				{tid: 2, op: get, code: 2},
				{tid: 1},
			}),
		},
		{
			name:  "negative initial value",
			steps: []step{{tid: 1, op: o(SemInit, sm, -1), misuse: "semaphore 0x603000 initialised with negative value -1"}},
		},
		{
			name: "init resets",
			steps: []step{
				{tid: 1, op: o(SemInit, sm, 5)},
				{tid: 1, op: o(SemInit, sm, 1)},
				{tid: 1, op: get, code: 1},
			},
		},
		{
			name: "trywait",
			steps: []step{
				{tid: 1, op: o(SemTrywait, sm, 0), code: EAGAIN},
				{tid: 1, op: post},
				{tid: 1, op: o(SemTrywait, sm, 0), code: OK},
				{tid: 1, op: o(SemTrywait, sm, 0), code: EAGAIN},
				{tid: 1, op: get, code: 0},
			},
		},
		{
			name: "timedwait",
			steps: []step{
				{tid: 1, op: o(SemTimedwait, sm, 0), code: ETIMEDOUT},
				{tid: 1, op: post},
				{tid: 1, op: o(SemTimedwait, sm, 0), code: OK},
				{tid: 1, op: get, code: 0},
			},
		},
		{
			name: "destroy with a waiter",
			steps: cat(threads(3), []step{
				{tid: 2, op: wait, blocked: true},
				{tid: 1, op: o(SemDestroy, sm, 0), misuse: "destroy of semaphore 0x603000 while thread 2 waits on it"},
				{tid: 3, op: wait, blocked: true},
				{tid: 1, op: o(SemDestroy, sm, 0), misuse: "while threads 2, 3 wait on it"},
				{tid: 1, op: post},
				{tid: 1, op: post},
				{tid: 2},
				{tid: 3},
				{tid: 1, op: o(SemDestroy, sm, 0)},
			}),
			check: func(t *testing.T, w *World) {
				if s, ok := w.sems[sm]; !ok || !s.destroyed {
					t.Error("the destroyed semaphore is not known as destroyed")
				}
			},
		},
		{
			name: "a destroyed semaphore cannot be used",
			steps: []step{
				{tid: 1, op: o(SemInit, sm, 3)},
				{tid: 1, op: o(SemDestroy, sm, 0)},
				{tid: 1, op: get, misuse: "sem-getvalue on semaphore 0x603000 after it was destroyed"},
			},
		},
		{
			// It was a deadlock ("threads 1 are blocked"): the wait
			// never ended.
			name: "waiting on a destroyed semaphore is a misuse",
			steps: []step{
				{tid: 1, op: o(SemInit, sm, 0)},
				{tid: 1, op: o(SemDestroy, sm, 0)},
				{tid: 1, op: wait, misuse: "sem-wait on semaphore 0x603000 after it was destroyed"},
			},
		},
		{
			name: "destroyed twice",
			steps: []step{
				{tid: 1, op: o(SemInit, sm, 0)},
				{tid: 1, op: o(SemDestroy, sm, 0)},
				{tid: 1, op: o(SemDestroy, sm, 0), misuse: "destroy of semaphore 0x603000, already destroyed"},
			},
		},
		{
			name: "initialised again after destroy",
			steps: []step{
				{tid: 1, op: o(SemInit, sm, 0)},
				{tid: 1, op: o(SemDestroy, sm, 0)},
				{tid: 1, op: o(SemInit, sm, 1)},
				{tid: 1, op: wait},
				{tid: 1, op: get, code: 0},
			},
		},
		{
			name: "semaphores are independent",
			steps: []step{
				{tid: 1, op: o(SemPost, sm+8, 0)},
				{tid: 1, op: wait, blocked: true},
			},
		},
	})
}
