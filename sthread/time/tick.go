package time

import (
	"time"
	"unsafe"

	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// Ticker is time.Ticker, of its size and alignment, with C at the same
// offset.
type Ticker struct {
	// C is the channel on which the ticks are sent.
	C <-chan time.Time
	// Padding, before the last field (a struct that ends with a field
	// of size zero is larger).
	_ [unsafe.Sizeof(time.Ticker{}) - unsafe.Sizeof((<-chan time.Time)(nil)) - unsafe.Sizeof((*tickerBox)(nil))]byte
	*tickerBox
}

// tickerBox is what a Ticker stands on: the real ticker outside a check,
// the timer of the checked program under one.
type tickerBox struct {
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
		return &Ticker{C: t.c, tickerBox: &tickerBox{t: t}}
	}
	r := time.NewTicker(d)
	return &Ticker{C: r.C, tickerBox: &tickerBox{real: r}}
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
