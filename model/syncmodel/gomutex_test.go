package syncmodel

import "testing"

// Objects of the Go primitives used by the tests.
const (
	gm  = 0x608000 // Go mutex
	grw = 0x609000 // Go RWMutex
	wg  = 0x60a000 // wait group
	gcv = 0x60b000 // Go condition variable
	ch1 = 0x60c000 // channel
	ch2 = 0x60d000 // another channel
	ch3 = 0x60e000 // a third channel
)

func TestGoMutex(t *testing.T) {
	lock := o(GoMutexLock, gm, 0)
	unlock := o(GoMutexUnlock, gm, 0)
	try := o(GoMutexTryLock, gm, 0)
	runScenarios(t, []scenario{
		{
			name: "contention",
			steps: cat(threads(3), []step{
				{tid: 1, op: lock},
				{tid: 2, op: lock, blocked: true},
				{tid: 3, op: lock, blocked: true},
				{tid: 1, op: unlock},
				{tid: 3},
				{tid: 2, blocked: true},
				{tid: 3, op: unlock},
				{tid: 2},
			}),
		},
		{
			name: "relock blocks for ever",
			steps: []step{
				{tid: 1, op: lock},
				{tid: 1, op: lock, blocked: true},
			},
		},
		{
			name: "unlock by another thread is allowed",
			steps: cat(threads(2), []step{
				{tid: 1, op: lock},
				{tid: 2, op: unlock},
				{tid: 2, op: lock},
			}),
		},
		{
			name: "unlock of a mutex locked by a finished thread",
			steps: cat(threads(2), []step{
				{tid: 2, op: lock},
				{tid: 2, op: Op{Kind: ThreadExit}},
				{tid: 1, op: unlock},
			}),
		},
		{
			name:  "unlock of unlocked mutex",
			steps: []step{{tid: 1, op: unlock, misuse: "unlock of unlocked mutex 0x608000"}},
		},
		{
			name: "double unlock",
			steps: []step{
				{tid: 1, op: lock},
				{tid: 1, op: unlock},
				{tid: 1, op: unlock, misuse: "unlock of unlocked mutex 0x608000"},
			},
		},
		{
			name: "trylock",
			steps: cat(threads(2), []step{
				{tid: 1, op: try, code: 1},
				{tid: 2, op: try, code: 0},
				{tid: 1, op: try, code: 0},
				{tid: 1, op: unlock},
				{tid: 2, op: try, code: 1},
			}),
		},
		{
			name: "separate from C mutexes",
			steps: []step{
				{tid: 1, op: o(MutexLock, gm, MutexNormal)},
				{tid: 1, op: lock},
			},
		},
	})
}

func TestGoRWMutex(t *testing.T) {
	var (
		rlock    = o(GoRWRLock, grw, 0)
		runlock  = o(GoRWRUnlock, grw, 0)
		lock     = o(GoRWLock, grw, 0)
		drain    = o(GoRWLockDrain, grw, 0)
		unlock   = o(GoRWUnlock, grw, 0)
		tryLock  = o(GoRWTryLock, grw, 0)
		tryRLock = o(GoRWTryRLock, grw, 0)
	)
	runScenarios(t, []scenario{
		{
			name: "readers share",
			steps: cat(threads(2), []step{
				{tid: 1, op: rlock},
				{tid: 2, op: rlock},
				{tid: 1, op: runlock},
				{tid: 2, op: runlock},
			}),
		},
		{
			name: "writer excludes readers and writers",
			steps: cat(threads(3), []step{
				{tid: 1, op: lock},
				{tid: 1, op: drain},
				{tid: 2, op: rlock, blocked: true},
				{tid: 3, op: lock, blocked: true},
				{tid: 1, op: unlock},
				{tid: 3},
				{tid: 2, blocked: true},
				{tid: 3, op: drain},
				{tid: 3, op: unlock},
				{tid: 2},
			}),
		},
		{
			name: "waiting writer blocks new readers",
			steps: cat(threads(3), []step{
				{tid: 1, op: rlock},
				{tid: 2, op: lock},
				{tid: 2, op: drain, blocked: true},
				{tid: 3, op: rlock, blocked: true},
				{tid: 1, op: runlock},
				{tid: 3, blocked: true},
				{tid: 2},
				{tid: 2, op: unlock},
				{tid: 3},
			}),
		},
		{
			name: "recursive read lock behind a waiting writer deadlocks",
			steps: cat(threads(2), []step{
				{tid: 1, op: rlock},
				{tid: 2, op: lock},
				{tid: 2, op: drain, blocked: true},
				{tid: 1, op: rlock, blocked: true},
			}),
			check: func(t *testing.T, w *World) {
				if b := w.Blocked(); len(b) != 2 {
					t.Errorf("Blocked() = %v, want [1 2]", b)
				}
			},
		},
		{
			name: "write lock while holding a read lock deadlocks",
			steps: []step{
				{tid: 1, op: rlock},
				{tid: 1, op: lock},
				{tid: 1, op: drain, blocked: true},
			},
		},
		{
			name: "unlock and runlock by other threads",
			steps: cat(threads(2), []step{
				{tid: 1, op: rlock},
				{tid: 2, op: runlock},
				{tid: 1, op: lock},
				{tid: 1, op: drain},
				{tid: 2, op: unlock},
			}),
		},
		{
			name: "try locks",
			steps: cat(threads(2), []step{
				{tid: 1, op: tryRLock, code: 1},
				{tid: 2, op: tryLock, code: 0},
				{tid: 2, op: tryRLock, code: 1},
				{tid: 1, op: runlock},
				{tid: 2, op: runlock},
				{tid: 2, op: tryLock, code: 1},
				{tid: 1, op: tryRLock, code: 0},
				{tid: 1, op: tryLock, code: 0},
			}),
		},
		{
			name: "try read lock fails behind a waiting writer",
			steps: cat(threads(3), []step{
				{tid: 1, op: rlock},
				{tid: 2, op: lock},
				{tid: 3, op: tryRLock, code: 0},
			}),
		},
		{
			name:  "runlock of unlocked",
			steps: []step{{tid: 1, op: runlock, misuse: "RUnlock of RWMutex 0x609000, which is not read-locked"}},
		},
		{
			name: "runlock of write-locked",
			steps: []step{
				{tid: 1, op: lock},
				{tid: 1, op: drain},
				{tid: 1, op: runlock, misuse: "RUnlock of RWMutex 0x609000, which is write-locked by thread 1"},
			},
		},
		{
			name:  "unlock of unlocked",
			steps: []step{{tid: 1, op: unlock, misuse: "Unlock of RWMutex 0x609000, which is not write-locked"}},
		},
		{
			name: "unlock of read-locked",
			steps: []step{
				{tid: 1, op: rlock},
				{tid: 1, op: unlock, misuse: "Unlock of RWMutex 0x609000, which is not write-locked"},
			},
		},
		{
			name: "unlock while the writer waits for readers",
			steps: cat(threads(2), []step{
				{tid: 1, op: rlock},
				{tid: 2, op: lock},
				{tid: 1, op: unlock, misuse: "thread 2 is still waiting for its readers"},
			}),
		},
	})
}
