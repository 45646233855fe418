package syncmodel

import "testing"

func TestMutex(t *testing.T) {
	lock := func(typ int64) Op { return o(MutexLock, mA, typ) }
	unlock := o(MutexUnlock, mA, 0)
	try := o(MutexTrylock, mA, 0)
	timed := o(MutexTimedlock, mA, 0)
	runScenarios(t, []scenario{
		{
			name: "lock unlock",
			steps: cat(threads(2), []step{
				{tid: 1, op: lock(MutexNormal)},
				{tid: 1, op: unlock},
				{tid: 2, op: try},
			}),
		},
		{
			name: "contention",
			steps: cat(threads(3), []step{
				{tid: 1, op: lock(MutexNormal)},
				{tid: 2, op: lock(MutexNormal), blocked: true},
				{tid: 3, op: lock(MutexNormal), blocked: true},
				{tid: 1, op: unlock},
				{tid: 3},
				{tid: 2, blocked: true},
				{tid: 3, op: unlock},
				{tid: 2},
			}),
		},
		{
			name: "relock of normal mutex",
			steps: []step{
				{tid: 1, op: lock(MutexNormal)},
				{tid: 1, op: lock(MutexNormal), misuse: "relock of non-recursive mutex 0x601040 (self-deadlock)"},
			},
		},
		{
			name: "relock of error-checking mutex",
			steps: []step{
				{tid: 1, op: lock(MutexErrorCheck)},
				{tid: 1, op: lock(MutexErrorCheck), misuse: "relock of non-recursive mutex 0x601040 (self-deadlock)"},
			},
		},
		{
			name: "unknown type is normal",
			steps: []step{
				{tid: 1, op: lock(3)},
				{tid: 1, op: lock(3), misuse: "relock of non-recursive mutex"},
			},
		},
		{
			name: "recursive mutex",
			steps: cat(threads(2), []step{
				{tid: 1, op: lock(MutexRecursive)},
				{tid: 1, op: lock(MutexRecursive)},
				{tid: 1, op: try},
				{tid: 1, op: timed},
				{tid: 2, op: lock(MutexRecursive), blocked: true},
				{tid: 1, op: unlock},
				{tid: 1, op: unlock},
				{tid: 1, op: unlock},
				{tid: 2, blocked: true},
				{tid: 1, op: unlock},
				{tid: 2},
				{tid: 1, op: unlock, misuse: "unlock of mutex 0x601040 held by thread 2"},
			}),
		},
		{
			name: "type is fixed at creation",
			steps: []step{
				{tid: 1, op: lock(MutexRecursive)},
				{tid: 1, op: lock(MutexNormal)},
			},
		},
		{
			name: "trylock",
			steps: cat(threads(2), []step{
				{tid: 1, op: try},
				{tid: 2, op: try, code: EBUSY},
				{tid: 1, op: try, code: EBUSY},
				{tid: 1, op: unlock},
				{tid: 2, op: try},
			}),
		},
		{
			name: "timedlock",
			steps: cat(threads(2), []step{
				{tid: 1, op: timed},
				{tid: 2, op: timed, code: ETIMEDOUT},
				{tid: 1, op: timed, misuse: "relock of non-recursive mutex 0x601040 (self-deadlock)"},
				{tid: 1, op: unlock},
				{tid: 2, op: timed},
				{tid: 2, op: unlock},
			}),
		},
		{
			name:  "unlock of unlocked mutex",
			steps: []step{{tid: 1, op: unlock, misuse: "unlock of unlocked mutex 0x601040"}},
		},
		{
			name: "unlock of mutex held by another thread",
			steps: cat(threads(2), []step{
				{tid: 1, op: lock(MutexNormal)},
				{tid: 2, op: unlock, misuse: "unlock of mutex 0x601040 held by thread 1"},
			}),
		},
		{
			name: "unlock of mutex held by a finished thread",
			steps: cat(threads(2), []step{
				{tid: 2, op: lock(MutexNormal)},
				{tid: 2, op: Op{Kind: ThreadExit}},
				{tid: 1, op: unlock, misuse: "unlock of mutex 0x601040 held by thread 2 (finished)"},
			}),
		},
		{
			name: "init",
			steps: []step{
				{tid: 1, op: o(MutexInit, mA, MutexRecursive)},
				{tid: 1, op: lock(MutexNormal)},
				{tid: 1, op: lock(MutexNormal)},
				{tid: 1, op: o(MutexInit, mA, MutexNormal), misuse: "init of locked mutex 0x601040 (held by thread 1)"},
				{tid: 1, op: unlock},
				{tid: 1, op: unlock},
				{tid: 1, op: o(MutexInit, mA, MutexNormal)},
				{tid: 1, op: lock(MutexRecursive)},
				{tid: 1, op: lock(MutexRecursive), misuse: "relock of non-recursive mutex"},
			},
		},
		{
			name: "destroy",
			steps: cat(threads(2), []step{
				{tid: 1, op: lock(MutexNormal)},
				{tid: 2, op: o(MutexDestroy, mA, 0), misuse: "destroy of locked mutex 0x601040 (held by thread 1)"},
				{tid: 1, op: unlock},
				{tid: 2, op: o(MutexDestroy, mA, 0)},
				{tid: 2, op: o(MutexDestroy, mA, 0)},
				{tid: 1, op: lock(MutexRecursive)},
				{tid: 1, op: lock(MutexRecursive)},
			}),
			check: func(t *testing.T, w *World) {
				if m := w.mutexes[mA]; m == nil || m.count != 2 || m.typ != MutexRecursive {
					t.Errorf("mutex after re-creation: %+v", m)
				}
			},
		},
		{
			name: "mutexes are independent",
			steps: cat(threads(2), []step{
				{tid: 1, op: lock(MutexNormal)},
				{tid: 2, op: o(MutexLock, mB, 0)},
				{tid: 1, op: o(MutexTrylock, mB, 0), code: EBUSY},
			}),
		},
	})
}

func TestSpinLock(t *testing.T) {
	lock := o(SpinLock, spn, 0)
	unlock := o(SpinUnlock, spn, 0)
	runScenarios(t, []scenario{
		{
			name: "lock unlock contention",
			steps: cat(threads(2), []step{
				{tid: 1, op: o(SpinInit, spn, 0)},
				{tid: 1, op: lock},
				{tid: 2, op: lock, blocked: true},
				{tid: 1, op: unlock},
				{tid: 2},
			}),
		},
		{
			name: "relock",
			steps: []step{
				{tid: 1, op: lock},
				{tid: 1, op: lock, misuse: "relock of spin lock 0x607000 (self-deadlock)"},
			},
		},
		{
			name: "recursive type ignored",
			steps: []step{
				{tid: 1, op: o(SpinInit, spn, MutexRecursive)},
				{tid: 1, op: o(SpinLock, spn, MutexRecursive)},
				{tid: 1, op: o(SpinLock, spn, MutexRecursive), misuse: "relock of spin lock"},
			},
		},
		{
			name: "trylock",
			steps: cat(threads(2), []step{
				{tid: 1, op: o(SpinTrylock, spn, 0)},
				{tid: 1, op: o(SpinTrylock, spn, 0), code: EBUSY},
				{tid: 2, op: o(SpinTrylock, spn, 0), code: EBUSY},
				{tid: 1, op: unlock},
				{tid: 2, op: o(SpinTrylock, spn, 0)},
			}),
		},
		{
			name: "unlock misuses",
			steps: cat(threads(2), []step{
				{tid: 1, op: unlock, misuse: "unlock of unlocked spin lock 0x607000"},
				{tid: 1, op: lock},
				{tid: 2, op: unlock, misuse: "unlock of spin lock 0x607000 held by thread 1"},
			}),
		},
		{
			name: "init and destroy",
			steps: []step{
				{tid: 1, op: lock},
				{tid: 1, op: o(SpinInit, spn, 0), misuse: "init of locked spin lock 0x607000 (held by thread 1)"},
				{tid: 1, op: o(SpinDestroy, spn, 0), misuse: "destroy of locked spin lock 0x607000 (held by thread 1)"},
				{tid: 1, op: unlock},
				{tid: 1, op: o(SpinDestroy, spn, 0)},
			},
			check: func(t *testing.T, w *World) {
				if len(w.spins) != 0 {
					t.Error("destroyed spin lock remembered")
				}
			},
		},
		{
			name: "spin lock and mutex at the same address are distinct",
			steps: cat(threads(2), []step{
				{tid: 1, op: o(SpinLock, mA, 0)},
				{tid: 2, op: o(MutexLock, mA, 0)},
			}),
		},
	})
}
