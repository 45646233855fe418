package time

import (
	"time"

	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// Ticker is time.Ticker.
type Ticker struct {
	// C is the channel on which the ticks are sent.
	C    <-chan time.Time
	real *time.Ticker
	t    *timer
}

// NewTicker is time.NewTicker. It panics if d <= 0.
//
//go:norace
func NewTicker(d time.Duration) *Ticker {
	if d <= 0 {
		panic("non-positive interval for NewTicker")
	}
	if th, ok := rt.Current(); ok {
		t := newTimer(th, d, d, nil)
		return &Ticker{C: t.c, t: t}
	}
	r := time.NewTicker(d)
	return &Ticker{C: r.C, real: r}
}

// Tick is time.Tick: nil if d <= 0.
//
//go:norace
func Tick(d time.Duration) <-chan time.Time {
	if d <= 0 {
		return nil
	}
	return NewTicker(d).C
}

// Stop is time.Ticker.Stop.
//
//go:norace
func (t *Ticker) Stop() {
	if t.t == nil {
		t.real.Stop()
		return
	}
	if th, ok := rt.Current(); ok {
		t.t.halt(th)
	}
}

// Reset is time.Ticker.Reset. It panics if d <= 0.
//
//go:norace
func (t *Ticker) Reset(d time.Duration) {
	if d <= 0 {
		panic("non-positive interval for Ticker.Reset")
	}
	if t.t == nil {
		t.real.Reset(d)
		return
	}
	if th, ok := rt.Current(); ok {
		t.t.halt(th)
		t.t.period = int64(d)
		t.t.arm(th, th.Now()+int64(d))
	}
}
