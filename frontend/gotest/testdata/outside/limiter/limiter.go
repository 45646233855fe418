// Package limiter takes turns on a clock, as go.uber.org/ratelimit's
// mutex-based limiter does: it holds its lock while it sleeps on the clock
// it was given.
package limiter

import (
	"sync"
	"time"

	"example.com/mockclock"
)

// Limiter lets one caller through per Every of its clock.
type Limiter struct {
	mu    sync.Mutex
	Clock *mockclock.Mock
	Every time.Duration
	taken int
}

// Take waits for the caller's turn.
func (l *Limiter) Take() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.taken > 0 {
		l.Clock.Sleep(l.Every)
	}
	l.taken++
}

// Taken counts the turns taken.
func (l *Limiter) Taken() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.taken
}
