package syncmodel

import "testing"

func TestRWLock(t *testing.T) {
	rd := o(RWRdlock, rw, 0)
	wr := o(RWWrlock, rw, 0)
	unlock := o(RWUnlock, rw, 0)
	tryRd := o(RWTryRdlock, rw, 0)
	tryWr := o(RWTryWrlock, rw, 0)
	timedRd := o(RWTimedRdlock, rw, 0)
	timedWr := o(RWTimedWrlock, rw, 0)
	runScenarios(t, []scenario{
		{
			name: "readers share, writer waits",
			steps: cat(threads(3), []step{
				{tid: 1, op: rd},
				{tid: 2, op: rd},
				{tid: 3, op: wr, blocked: true},
				{tid: 1, op: unlock},
				{tid: 3, blocked: true},
				{tid: 2, op: unlock},
				{tid: 3},
			}),
		},
		{
			name: "writer excludes everyone",
			steps: cat(threads(3), []step{
				{tid: 1, op: wr},
				{tid: 2, op: rd, blocked: true},
				{tid: 3, op: wr, blocked: true},
				{tid: 1, op: unlock},
				{tid: 2},
				{tid: 3, blocked: true},
			}),
		},
		{
			name: "readers are preferred",
			steps: cat(threads(3), []step{
				{tid: 1, op: rd},
				{tid: 2, op: wr, blocked: true},
				{tid: 3, op: rd},
			}),
		},
		{
			name: "read holds are counted",
			steps: cat(threads(2), []step{
				{tid: 1, op: rd},
				{tid: 1, op: rd},
				{tid: 1, op: tryRd},
				{tid: 2, op: wr, blocked: true},
				{tid: 1, op: unlock},
				{tid: 1, op: unlock},
				{tid: 2, blocked: true},
				{tid: 1, op: unlock},
				{tid: 2},
			}),
		},
		{
			name: "read lock while writing",
			steps: []step{
				{tid: 1, op: wr},
				{tid: 1, op: rd, misuse: "read lock of rwlock 0x604000 while holding the write lock (self-deadlock)"},
			},
		},
		{
			name: "write relock",
			steps: []step{
				{tid: 1, op: wr},
				{tid: 1, op: wr, misuse: "relock of rwlock 0x604000 while holding the write lock (self-deadlock)"},
			},
		},
		{
			name: "write lock while reading",
			steps: cat(threads(2), []step{
				{tid: 2, op: rd},
				{tid: 1, op: rd},
				{tid: 1, op: wr, misuse: "write lock of rwlock 0x604000 while holding a read lock (self-deadlock)"},
			}),
		},
		{
			name: "try variants",
			steps: cat(threads(2), []step{
				{tid: 1, op: tryWr},
				{tid: 2, op: tryRd, code: EBUSY},
				{tid: 2, op: tryWr, code: EBUSY},
				{tid: 1, op: tryRd, code: EBUSY},
				{tid: 1, op: tryWr, code: EBUSY},
				{tid: 1, op: unlock},
				{tid: 1, op: tryRd},
				{tid: 2, op: tryRd},
				{tid: 2, op: tryWr, code: EBUSY},
				{tid: 1, op: tryWr, code: EBUSY},
			}),
		},
		{
			name: "timed variants",
			steps: cat(threads(2), []step{
				{tid: 1, op: timedWr},
				{tid: 2, op: timedRd, code: ETIMEDOUT},
				{tid: 2, op: timedWr, code: ETIMEDOUT},
				{tid: 1, op: timedRd, misuse: "read lock of rwlock 0x604000 while holding the write lock"},
				{tid: 1, op: timedWr, misuse: "relock of rwlock 0x604000"},
				{tid: 1, op: unlock},
				{tid: 1, op: timedRd},
				{tid: 2, op: timedRd},
				{tid: 2, op: timedWr, misuse: "write lock of rwlock 0x604000 while holding a read lock"},
				{tid: 1, op: unlock},
				{tid: 1, op: timedWr, code: ETIMEDOUT},
				{tid: 2, op: unlock},
				{tid: 1, op: timedWr},
			}),
		},
		{
			name: "unlock misuses",
			steps: cat(threads(3), []step{
				{tid: 1, op: unlock, misuse: "unlock of unlocked rwlock 0x604000"},
				{tid: 1, op: rd},
				{tid: 3, op: unlock, misuse: "unlock of rwlock 0x604000 read-locked by thread 1"},
				{tid: 2, op: rd},
				{tid: 3, op: unlock, misuse: "unlock of rwlock 0x604000 read-locked by threads 1, 2"},
				{tid: 1, op: unlock},
				{tid: 2, op: unlock},
				{tid: 2, op: wr},
				{tid: 2, op: Op{Kind: ThreadExit}},
				{tid: 1, op: unlock, misuse: "unlock of rwlock 0x604000 write-locked by thread 2 (finished)"},
			}),
		},
		{
			name: "init and destroy",
			steps: []step{
				{tid: 1, op: o(RWInit, rw, 0)},
				{tid: 1, op: rd},
				{tid: 1, op: o(RWInit, rw, 0), misuse: "init of rwlock 0x604000 while read-locked by thread 1"},
				{tid: 1, op: o(RWDestroy, rw, 0), misuse: "destroy of rwlock 0x604000 while read-locked by thread 1"},
				{tid: 1, op: unlock},
				{tid: 1, op: wr},
				{tid: 1, op: o(RWDestroy, rw, 0), misuse: "destroy of rwlock 0x604000 while write-locked by thread 1"},
				{tid: 1, op: unlock},
				{tid: 1, op: o(RWInit, rw, 0)},
				{tid: 1, op: o(RWDestroy, rw, 0)},
				{tid: 1, op: o(RWDestroy, rw, 0)},
			},
			check: func(t *testing.T, w *World) {
				if _, ok := w.rwlocks[rw]; ok {
					t.Error("destroyed rwlock remembered")
				}
			},
		},
	})
}
