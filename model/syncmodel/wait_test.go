package syncmodel

import (
	"reflect"
	"slices"
	"testing"
)

func TestWaitFor(t *testing.T) {
	lock := o(MutexLock, mA, 0)
	cases := []struct {
		name  string
		steps []step
		tid   int
		want  Wait
	}{
		{
			name: "mutex",
			steps: cat(threads(2), []step{
				{tid: 2, op: lock},
				{tid: 1, op: lock, blocked: true},
			}),
			tid:  1,
			want: Wait{Obj: mA, What: "mutex", Holders: []int{2}, Detail: "held by thread 2"},
		},
		{
			name: "mutex held by a finished thread",
			steps: cat(threads(2), []step{
				{tid: 2, op: lock},
				{tid: 2, op: Op{Kind: ThreadExit}},
				{tid: 1, op: lock, blocked: true},
			}),
			tid:  1,
			want: Wait{Obj: mA, What: "mutex", Holders: []int{2}, Detail: "held by thread 2 (finished)"},
		},
		{
			name: "spin lock",
			steps: cat(threads(2), []step{
				{tid: 1, op: o(SpinLock, spn, 0)},
				{tid: 2, op: o(SpinLock, spn, 0), blocked: true},
			}),
			tid:  2,
			want: Wait{Obj: spn, What: "spin lock", Holders: []int{1}, Detail: "held by thread 1"},
		},
		{
			name: "condition not signalled",
			steps: []step{
				{tid: 1, op: lock},
				{tid: 1, op: o2(CondWait, cv, mA, 0)},
				{tid: 1, op: o2(CondReacquire, cv, mA, 0), blocked: true},
			},
			tid:  1,
			want: Wait{Obj: cv, Obj2: mA, What: "condition variable", Detail: "not signalled"},
		},
		{
			name: "condition signalled, mutex held",
			steps: cat(threads(2), []step{
				{tid: 1, op: lock},
				{tid: 1, op: o2(CondWait, cv, mA, 0)},
				{tid: 2, op: lock},
				{tid: 2, op: o(CondSignal, cv, 0)},
				{tid: 1, op: o2(CondReacquire, cv, mA, 0), blocked: true},
			}),
			tid:  1,
			want: Wait{Obj: mA, Obj2: cv, What: "mutex", Holders: []int{2}, Detail: "held by thread 2"},
		},
		{
			name: "timed condition wait, mutex held",
			steps: cat(threads(2), []step{
				{tid: 1, op: lock},
				{tid: 1, op: o2(CondWait, cv, mA, 0)},
				{tid: 2, op: lock},
				{tid: 1, op: o2(CondReacquire, cv, mA, 1), blocked: true},
			}),
			tid:  1,
			want: Wait{Obj: mA, Obj2: cv, What: "mutex", Holders: []int{2}, Detail: "held by thread 2"},
		},
		{
			name:  "semaphore",
			steps: []step{{tid: 1, op: o(SemWait, sm, 0), blocked: true}},
			tid:   1,
			want:  Wait{Obj: sm, What: "semaphore", Detail: "value 0"},
		},
		{
			name: "rwlock read blocked by writer",
			steps: cat(threads(2), []step{
				{tid: 2, op: o(RWWrlock, rw, 0)},
				{tid: 1, op: o(RWRdlock, rw, 0), blocked: true},
			}),
			tid:  1,
			want: Wait{Obj: rw, What: "rwlock", Holders: []int{2}, Detail: "write-locked by thread 2"},
		},
		{
			name: "rwlock write blocked by readers",
			steps: cat(threads(4), []step{
				{tid: 3, op: o(RWRdlock, rw, 0)},
				{tid: 2, op: o(RWRdlock, rw, 0)},
				{tid: 3, op: Op{Kind: ThreadExit}},
				{tid: 4, op: o(RWWrlock, rw, 0), blocked: true},
			}),
			tid:  4,
			want: Wait{Obj: rw, What: "rwlock", Holders: []int{2, 3}, Detail: "read-locked by threads 2, 3 (finished)"},
		},
		{
			name: "rwlock write blocked by writer",
			steps: cat(threads(2), []step{
				{tid: 2, op: o(RWWrlock, rw, 0)},
				{tid: 1, op: o(RWWrlock, rw, 0), blocked: true},
			}),
			tid:  1,
			want: Wait{Obj: rw, What: "rwlock", Holders: []int{2}, Detail: "write-locked by thread 2"},
		},
		{
			name: "barrier",
			steps: cat(threads(3), []step{
				{tid: 1, op: o(BarrierInit, bar, 3)},
				{tid: 2, op: o(BarrierWait, bar, 0)},
				{tid: 2, op: o(BarrierLeave, bar, 0), blocked: true},
			}),
			tid:  2,
			want: Wait{Obj: bar, What: "barrier", Detail: "1 of 3 arrived"},
		},
		{
			name: "once",
			steps: cat(threads(2), []step{
				{tid: 2, op: o(OnceBegin, onc, 0), code: 1},
				{tid: 1, op: o(OnceBegin, onc, 0), blocked: true},
			}),
			tid:  1,
			want: Wait{Obj: onc, What: "once", Holders: []int{2}, Detail: "initialiser running in thread 2"},
		},
		{
			name: "once whose initialiser exited",
			steps: cat(threads(2), []step{
				{tid: 2, op: o(OnceBegin, onc, 0), code: 1},
				{tid: 2, op: Op{Kind: ThreadExit}},
				{tid: 1, op: o(OnceBegin, onc, 0), blocked: true},
			}),
			tid:  1,
			want: Wait{Obj: onc, What: "once", Holders: []int{2}, Detail: "initialiser running in thread 2 (finished)"},
		},
		{
			name: "join",
			steps: cat(threads(3), []step{
				{tid: 1, op: o(ThreadJoin, 0, 3), blocked: true},
			}),
			tid:  1,
			want: Wait{What: "thread", Join: 3, Detail: "thread 3 has not exited"},
		},
		{
			name: "go mutex",
			steps: cat(threads(2), []step{
				{tid: 2, op: o(GoMutexLock, gm, 0)},
				{tid: 1, op: o(GoMutexLock, gm, 0), blocked: true},
			}),
			tid:  1,
			want: Wait{Obj: gm, What: "mutex", Holders: []int{2}, Detail: "held by thread 2"},
		},
		{
			name: "go mutex relocked by its holder",
			steps: []step{
				{tid: 1, op: o(GoMutexLock, gm, 0)},
				{tid: 1, op: o(GoMutexLock, gm, 0), blocked: true},
			},
			tid:  1,
			want: Wait{Obj: gm, What: "mutex", Holders: []int{1}, Detail: "held by thread 1"},
		},
		{
			name: "go rwmutex read lock behind a waiting writer",
			steps: cat(threads(3), []step{
				{tid: 1, op: o(GoRWRLock, grw, 0)},
				{tid: 2, op: o(GoRWLock, grw, 0)},
				{tid: 3, op: o(GoRWRLock, grw, 0), blocked: true},
			}),
			tid:  3,
			want: Wait{Obj: grw, What: "RWMutex", Holders: []int{2}, Detail: "thread 2 is waiting to write-lock it"},
		},
		{
			name: "go rwmutex write-locked",
			steps: cat(threads(2), []step{
				{tid: 2, op: o(GoRWLock, grw, 0)},
				{tid: 2, op: o(GoRWLockDrain, grw, 0)},
				{tid: 1, op: o(GoRWLock, grw, 0), blocked: true},
			}),
			tid:  1,
			want: Wait{Obj: grw, What: "RWMutex", Holders: []int{2}, Detail: "write-locked by thread 2"},
		},
		{
			name: "go rwmutex writer waiting for readers",
			steps: cat(threads(3), []step{
				{tid: 3, op: o(GoRWRLock, grw, 0)},
				{tid: 1, op: o(GoRWRLock, grw, 0)},
				{tid: 2, op: o(GoRWLock, grw, 0)},
				{tid: 2, op: o(GoRWLockDrain, grw, 0), blocked: true},
			}),
			tid:  2,
			want: Wait{Obj: grw, What: "RWMutex", Holders: []int{1, 3}, Detail: "read-locked by threads 1, 3"},
		},
		{
			name: "wait group",
			steps: []step{
				{tid: 1, op: o(WGAdd, wg, 2)},
				{tid: 1, op: o(WGWait, wg, 0), blocked: true},
			},
			tid:  1,
			want: Wait{Obj: wg, What: "WaitGroup", Detail: "counter 2"},
		},
		{
			name: "go condition variable",
			steps: []step{
				{tid: 1, op: o(GoCondWait, gcv, 0)},
				{tid: 1, op: o(GoCondWake, gcv, 0), blocked: true},
			},
			tid:  1,
			want: Wait{Obj: gcv, What: "condition variable", Detail: "not signalled"},
		},
		{
			name:  "unbuffered send",
			steps: []step{{tid: 1, op: send(ch1, 0), code: parkedCode}, {tid: 1, op: chwake(ch1), blocked: true}},
			tid:   1,
			want:  Wait{Obj: ch1, What: "channel", Detail: "no receiver"},
		},
		{
			name: "buffered send",
			steps: []step{
				{tid: 1, op: send(ch1, 1), code: bufSent},
				{tid: 1, op: send(ch1, 1), code: parkedCode},
				{tid: 1, op: chwake(ch1), blocked: true},
			},
			tid:  1,
			want: Wait{Obj: ch1, What: "channel", Detail: "buffer full (1 of 1)"},
		},
		{
			name:  "unbuffered receive",
			steps: []step{{tid: 1, op: recv(ch1, 0), blocked: true}},
			tid:   1,
			want:  Wait{Obj: ch1, What: "channel", Detail: "no sender"},
		},
		{
			name:  "buffered receive",
			steps: []step{{tid: 1, op: recv(ch1, 2), blocked: true}},
			tid:   1,
			want:  Wait{Obj: ch1, What: "channel", Detail: "buffer empty"},
		},
		{
			name:  "nil channel",
			steps: []step{{tid: 1, op: recv(0, 0), blocked: true}},
			tid:   1,
			want:  Wait{What: "channel", Detail: "nil channel: blocks for ever"},
		},
		{
			name: "select",
			steps: []step{
				{tid: 1, op: sel(false, rc(0, 0), rc(ch2, 0), sc(ch1, 0)), code: parkedCode},
				{tid: 1, op: selwake(rc(0, 0), rc(ch2, 0), sc(ch1, 0)), blocked: true},
			},
			tid:  1,
			want: Wait{Obj: ch2, What: "select", Detail: "no case is ready"},
		},
		{
			name: "select on nil channels",
			steps: []step{
				{tid: 1, op: sel(false, rc(0, 0)), blocked: true},
			},
			tid:  1,
			want: Wait{What: "select", Detail: "no case on a non-nil channel: blocks for ever"},
		},
		{
			name:  "enabled thread",
			steps: []step{{tid: 1, op: lock, hold: true}},
			tid:   1,
			want:  Wait{},
		},
		{
			name:  "thread without pending op",
			steps: threads(2),
			tid:   2,
			want:  Wait{},
		},
		{
			name:  "finished thread",
			steps: []step{{tid: 1, op: Op{Kind: ThreadExit}}},
			tid:   1,
			want:  Wait{},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := NewWorld()
			run(t, w, c.steps)
			if got := w.WaitFor(c.tid); !reflect.DeepEqual(got, c.want) {
				t.Errorf("WaitFor(%d) = %+v, want %+v", c.tid, got, c.want)
			}
		})
	}
}

// TestEveryBlockedThreadHasAWait checks that WaitFor describes every thread
// Blocked reports, in a world with one thread blocked on each primitive.
func TestEveryBlockedThreadHasAWait(t *testing.T) {
	w := NewWorld()
	run(t, w, cat(threads(12), []step{
		{tid: 1, op: o(MutexLock, mA, 0)},
		{tid: 1, op: o(SpinLock, spn, 0)},
		{tid: 1, op: o(RWWrlock, rw, 0)},
		{tid: 1, op: o(OnceBegin, onc, 0), code: 1},
		{tid: 1, op: o(BarrierInit, bar, 5)},
		{tid: 2, op: o(MutexLock, mA, 0), blocked: true},
		{tid: 3, op: o(SpinLock, spn, 0), blocked: true},
		{tid: 4, op: o(RWRdlock, rw, 0), blocked: true},
		{tid: 5, op: o(RWWrlock, rw, 0), blocked: true},
		{tid: 6, op: o(OnceBegin, onc, 0), blocked: true},
		{tid: 7, op: o(BarrierWait, bar, 0)},
		{tid: 7, op: o(BarrierLeave, bar, 0), blocked: true},
		{tid: 8, op: o(SemWait, sm, 0), blocked: true},
		{tid: 9, op: o(ThreadJoin, 0, 1), blocked: true},
		{tid: 10, op: o(MutexLock, mB, 0)},
		{tid: 10, op: o2(CondWait, cv, mB, 0)},
		{tid: 10, op: o2(CondReacquire, cv, mB, 0), blocked: true},
		{tid: 11, op: o(MutexLock, mB, 0)},
		{tid: 11, op: o2(CondWait, cv, mB, 0)},
		{tid: 12, op: o(MutexLock, mB, 0)},
		{tid: 11, op: o2(CondReacquire, cv, mB, 1), blocked: true},
	}))
	run(t, w, cat([]step{create(1, 13), create(1, 14), create(1, 15), create(1, 16), create(1, 17), create(1, 18),
		create(1, 19), create(1, 20)}, []step{
		{tid: 1, op: o(GoMutexLock, gm, 0)},
		{tid: 13, op: o(GoMutexLock, gm, 0), blocked: true},
		{tid: 1, op: o(GoRWRLock, grw, 0)},
		{tid: 14, op: o(GoRWLock, grw, 0)},
		{tid: 14, op: o(GoRWLockDrain, grw, 0), blocked: true},
		{tid: 15, op: o(GoRWRLock, grw, 0), blocked: true},
		{tid: 1, op: o(WGAdd, wg, 1)},
		{tid: 16, op: o(WGWait, wg, 0), blocked: true},
		{tid: 17, op: o(GoCondWait, gcv, 0)},
		{tid: 17, op: o(GoCondWake, gcv, 0), blocked: true},
		{tid: 18, op: send(ch1, 0), code: parkedCode},
		{tid: 18, op: chwake(ch1), blocked: true},
		{tid: 19, op: recv(0, 0), blocked: true},
		{tid: 20, op: sel(false, rc(ch2, 0), sc(ch3, 0)), code: parkedCode},
		{tid: 20, op: selwake(rc(ch2, 0), sc(ch3, 0)), blocked: true},
	}))
	blocked := w.Blocked()
	if want := []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16, 17, 18, 19, 20}; !slices.Equal(blocked, want) {
		t.Fatalf("Blocked() = %v, want %v", blocked, want)
	}
	for _, tid := range blocked {
		wt := w.WaitFor(tid)
		if wt.What == "" || wt.Detail == "" {
			t.Errorf("WaitFor(%d) = %+v: incomplete", tid, wt)
		}
	}
}
