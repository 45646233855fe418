// Package mockclock is a fake clock of the shape of
// github.com/benbjohnson/clock's Mock, in a module of its own so that
// stdbg does not instrument it: Sleep waits on a real channel that only
// Add, called by another goroutine, closes.
package mockclock

import (
	"sync"
	"time"
)

// Mock is a clock that moves only when Add says so.
type Mock struct {
	mu      sync.Mutex
	now     time.Duration
	waiters []waiter
}

type waiter struct {
	until time.Duration
	ch    chan struct{}
}

// Sleep blocks until the clock has moved d on.
func (m *Mock) Sleep(d time.Duration) {
	m.mu.Lock()
	ch := make(chan struct{})
	m.waiters = append(m.waiters, waiter{m.now + d, ch})
	m.mu.Unlock()
	<-ch
}

// Add moves the clock d on and wakes the sleepers whose time came.
func (m *Mock) Add(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now += d
	kept := m.waiters[:0]
	for _, w := range m.waiters {
		if w.until <= m.now {
			close(w.ch)
		} else {
			kept = append(kept, w)
		}
	}
	m.waiters = kept
}

// Pause sleeps d of real time.
func Pause(d time.Duration) { time.Sleep(d) }
