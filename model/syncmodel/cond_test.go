package syncmodel

import (
	"errors"
	"strings"
	"testing"
)

func TestCond(t *testing.T) {
	lock := o(MutexLock, mA, 0)
	unlock := o(MutexUnlock, mA, 0)
	wait := o2(CondWait, cv, mA, 0)
	reacq := o2(CondReacquire, cv, mA, 0)
	timedReacq := o2(CondReacquire, cv, mA, 1)
	signal := o(CondSignal, cv, 0)
	broadcast := o(CondBroadcast, cv, 0)
	// waitFor returns the steps in which tid locks mA and waits on cv.
	waitFor := func(tid int) []step {
		return []step{{tid: tid, op: lock}, {tid: tid, op: wait}}
	}
	runScenarios(t, []scenario{
		{
			name: "wait signal reacquire",
			steps: cat(threads(2), waitFor(1), []step{
				{tid: 2, op: lock}, // the wait released the mutex
				{tid: 1, op: reacq, blocked: true},
				{tid: 2, op: signal},
				{tid: 1, blocked: true}, // signalled, but the mutex is held
				{tid: 2, op: unlock},
				{tid: 1, code: OK},
				{tid: 2, op: o(MutexTrylock, mA, 0), code: EBUSY},
				{tid: 1, op: unlock},
			}),
			check: func(t *testing.T, w *World) {
				if c := w.conds[cv]; c == nil || len(c.waiters) != 0 || c.mutex != 0 {
					t.Errorf("cond after the wait: %+v", c)
				}
			},
		},
		{
			name: "wait without holding the mutex",
			steps: []step{{tid: 1, op: Op{Kind: CondWait, API: APICondWait, Obj: cv, Obj2: mA},
				misuse: "pthread_cond_wait on condition variable 0x602000 without holding its mutex 0x601040"}},
		},
		{
			name:  "wait without API name",
			steps: []step{{tid: 1, op: wait, misuse: "condition wait on condition variable 0x602000 without holding its mutex 0x601040"}},
		},
		{
			name: "wait with a mutex held by another thread",
			steps: cat(threads(2), []step{
				{tid: 2, op: lock},
				{tid: 1, op: wait, misuse: "without holding its mutex 0x601040 (held by thread 2)"},
			}),
		},
		{
			name: "timed wait times out",
			steps: cat(waitFor(1), []step{
				{tid: 1, op: timedReacq, code: ETIMEDOUT},
				{tid: 1, op: unlock},
			}),
		},
		{
			name: "timed wait needs the mutex",
			steps: cat(threads(2), waitFor(1), []step{
				{tid: 2, op: lock},
				{tid: 1, op: timedReacq, blocked: true},
				{tid: 2, op: unlock},
				{tid: 1, code: ETIMEDOUT},
			}),
		},
		{
			name: "timed wait signalled",
			steps: cat(threads(2), waitFor(1), []step{
				{tid: 2, op: signal},
				{tid: 1, op: timedReacq, code: OK},
			}),
		},
		{
			name: "signal wakes the first waiter",
			steps: cat(threads(3), waitFor(1), waitFor(2), []step{
				{tid: 1, op: reacq, blocked: true},
				{tid: 2, op: reacq, blocked: true},
				{tid: 3, op: signal},
				{tid: 2, blocked: true},
				{tid: 1},
				{tid: 1, op: unlock},
				{tid: 2, blocked: true},
				{tid: 3, op: signal},
				{tid: 2},
			}),
		},
		{
			name: "signal skips signalled waiters",
			steps: cat(threads(3), waitFor(1), waitFor(2), []step{
				{tid: 3, op: signal},
				{tid: 3, op: signal},
				{tid: 1, op: reacq},
				{tid: 1, op: unlock},
				{tid: 2, op: reacq},
			}),
		},
		{
			name: "broadcast wakes all",
			steps: cat(threads(3), waitFor(1), waitFor(2), []step{
				{tid: 3, op: broadcast},
				{tid: 2, op: reacq},
				{tid: 1, op: reacq, blocked: true},
				{tid: 2, op: unlock},
				{tid: 1},
			}),
		},
		{
			name: "signal before wait is lost",
			steps: cat(threads(2), []step{
				{tid: 2, op: signal},
				{tid: 2, op: broadcast},
			}, waitFor(1), []step{
				{tid: 1, op: reacq, blocked: true},
			}),
		},
		{
			name: "waiters with different mutexes",
			steps: cat(threads(2), waitFor(1), []step{
				{tid: 2, op: o(MutexLock, mB, 0)},
				{tid: 2, op: o2(CondWait, cv, mB, 0),
					misuse: "wait on condition variable 0x602000 with mutex 0x601080 while other threads wait with mutex 0x601040"},
			}),
		},
		{
			name: "another mutex once the waiters are gone",
			steps: cat(waitFor(1), []step{
				{tid: 1, op: timedReacq, code: ETIMEDOUT},
				{tid: 1, op: unlock},
				{tid: 1, op: o(MutexLock, mB, 0)},
				{tid: 1, op: o2(CondWait, cv, mB, 0)},
			}),
		},
		{
			name: "recursive mutex depth is restored",
			steps: cat(threads(2), []step{
				{tid: 1, op: o(MutexLock, mA, MutexRecursive)},
				{tid: 1, op: o(MutexLock, mA, MutexRecursive)},
				{tid: 1, op: wait},
				{tid: 2, op: o(MutexTrylock, mA, 0)},
				{tid: 2, op: unlock},
				{tid: 1, op: timedReacq, code: ETIMEDOUT},
				{tid: 1, op: unlock},
				{tid: 2, op: o(MutexTrylock, mA, 0), code: EBUSY},
				{tid: 1, op: unlock},
				{tid: 1, op: unlock, misuse: "unlock of unlocked mutex"},
			}),
		},
		{
			name: "mutex destroyed during the wait",
			steps: cat(waitFor(1), []step{
				{tid: 1, op: timedReacq, hold: true},
			}),
			check: func(t *testing.T, w *World) {
				w.threads[0].condType = MutexRecursive
				delete(w.mutexes, mA)
				if _, err := w.Execute(1, 0); err != nil {
					t.Fatal(err)
				}
				if m := w.mutexes[mA]; m == nil || m.owner != 1 || m.typ != MutexRecursive {
					t.Errorf("mutex after reacquire: %+v", m)
				}
			},
		},
		{
			name: "destroy with waiters",
			steps: cat(threads(3), waitFor(1), waitFor(2), []step{
				{tid: 3, op: o(CondDestroy, cv, 0), misuse: "destroy of condition variable 0x602000 while threads 1, 2 wait on it"},
				{tid: 3, op: broadcast},
				{tid: 3, op: o(CondDestroy, cv, 0), misuse: "while threads 1, 2 wait on it"},
				{tid: 1, op: reacq},
				{tid: 3, op: o(CondDestroy, cv, 0), misuse: "destroy of condition variable 0x602000 while thread 2 waits on it"},
				{tid: 1, op: unlock},
				{tid: 2, op: reacq},
				{tid: 3, op: o(CondDestroy, cv, 0)},
			}),
			check: func(t *testing.T, w *World) {
				if _, ok := w.conds[cv]; ok {
					t.Error("destroyed cond remembered")
				}
			},
		},
		{
			name: "init with waiters",
			steps: cat(threads(2), []step{
				{tid: 2, op: o(CondInit, cv, 0)},
			}, waitFor(1), []step{
				{tid: 2, op: o(CondInit, cv, 0), misuse: "init of condition variable 0x602000 while thread 1 waits on it"},
				{tid: 2, op: o(CondDestroy, cv, 0), misuse: "destroy of condition variable"},
				{tid: 1, op: timedReacq, code: ETIMEDOUT},
				{tid: 2, op: o(CondInit, cv, 0)},
			}),
		},
	})
}

// TestSpuriousWakeups: with spurious wake-ups on, a thread's first
// condition wait is a choice: 0 waits, 1 returns at once (SpuriousReturn,
// Result.Spurious) still holding the mutex, leaving no waiter; the same
// thread's later waits are no choice; other threads have their own; off,
// no wait is a choice.
func TestSpuriousWakeups(t *testing.T) {
	lock := o(MutexLock, mA, 0)
	wait := o2(CondWait, cv, mA, 0)
	tests := []struct {
		name     string
		spurious bool
		// steps run in order; choices[i] is the choice of step i and
		// wantChoices[i] the number of choices its operation offers.
		steps       []step
		wantChoices []int
		// spuriousAt: the index of the step that returns at once, -1
		// for none.
		spuriousAt int
	}{
		{"off", false, []step{{tid: 1, op: lock}, {tid: 1, op: wait}}, []int{0, 0}, -1},
		{"on: the waiting branch", true, []step{{tid: 1, op: lock}, {tid: 1, op: wait}}, []int{0, 2}, -1},
		{"on: once per thread", true, []step{
			{tid: 1, op: lock}, {tid: 1, op: wait, choice: 1}, {tid: 1, op: wait},
		}, []int{0, 2, 0}, 1},
		{"on: each thread has its own", true, cat(threads(2), []step{
			{tid: 1, op: lock}, {tid: 1, op: wait, choice: 1}, {tid: 1, op: wait},
			{tid: 2, op: lock}, {tid: 2, op: wait},
		}), []int{0, 0, 2, 0, 0, 2}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := NewWorld()
			w.SetSpuriousWakeups(tt.spurious)
			for i, s := range tt.steps {
				if err := w.SetPending(s.tid, s.op); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if n := w.Choices(s.tid); n != tt.wantChoices[i] {
					t.Fatalf("step %d: %s offers %d choices, want %d", i, s.op, n, tt.wantChoices[i])
				}
				res, err := w.Execute(s.tid, s.choice)
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if res.Spurious != (i == tt.spuriousAt) || res.Spurious != (res.Code == SpuriousReturn) {
					t.Fatalf("step %d: %+v, want spurious %v", i, res, i == tt.spuriousAt)
				}
				if res.Spurious {
					// Still the mutex's owner, and not a waiter.
					if m := w.mutexes[mA]; m == nil || m.owner != s.tid {
						t.Fatalf("step %d: the mutex is not held by thread %d after a spurious return: %+v", i, s.tid, m)
					}
					if c := w.conds[cv]; c != nil && len(c.waiters) > 0 {
						t.Fatalf("step %d: waiters after a spurious return: %+v", i, c.waiters)
					}
				}
			}
		})
	}
	// A spurious return is still checked for misuse: the mutex must be held.
	w := NewWorld()
	w.SetSpuriousWakeups(true)
	if err := w.SetPending(1, wait); err != nil {
		t.Fatal(err)
	}
	var m *Misuse
	if _, err := w.Execute(1, 1); !errors.As(err, &m) || !strings.Contains(m.Msg, "without holding its mutex") {
		t.Fatalf("spurious return without the mutex: %v, want a misuse", err)
	}
}
