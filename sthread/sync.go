package sthread

import ssync "github.com/stdbg/stdbg/sthread/sync"

// The primitives of package sync, from package sthread/sync: their
// documentation is there.

// Mutex is a mutual exclusion lock, a drop-in replacement for sync.Mutex.
// Under Check its Lock, TryLock and Unlock are scheduling points.
type Mutex = ssync.Mutex

// RWMutex is a reader/writer mutual exclusion lock, a drop-in replacement
// for sync.RWMutex.
type RWMutex = ssync.RWMutex

// WaitGroup waits for a collection of goroutines to finish, a drop-in
// replacement for sync.WaitGroup.
type WaitGroup = ssync.WaitGroup

// Once performs exactly one action, a drop-in replacement for sync.Once.
type Once = ssync.Once

// Cond is a condition variable, a drop-in replacement for sync.Cond. Make
// one with NewCond.
type Cond = ssync.Cond

// A Locker represents an object that can be locked and unlocked: a Mutex,
// an RWMutex, the RLocker of an RWMutex, or any sync.Locker.
type Locker = ssync.Locker

// NewCond returns a new Cond with Locker l.
//
//go:norace
func NewCond(l Locker) *Cond { return ssync.NewCond(l) }
