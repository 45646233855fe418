package time

import (
	"time"
	"unsafe"

	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// Sleep pauses the calling goroutine for at least d, like time.Sleep. Under
// a check it waits until the virtual clock reaches now+d: a scheduling
// point that lets every earlier timer fire first and every other goroutine
// run meanwhile, after which the clock reads now+d. A d <= 0 is a plain
// scheduling point, where no time passes. Outside a check it sleeps for
// real, and in a process that stdbg runs moves the clock Now reads there
// on by d.
//
//go:norace
func Sleep(d time.Duration) {
	if th, ok := rt.Current(); ok {
		if d <= 0 {
			th.Point(syncmodel.Op{Kind: syncmodel.Yield, API: syncmodel.APITimeSleep})
			return
		}
		var buf [rt.FramesCap]uintptr
		th.SleepUntil(th.Now()+int64(d), 0, syncmodel.APITimeSleep, th.Capture(buf[:]))
		return
	}
	time.Sleep(d)
	rt.OutsideSlept(int64(d))
}

// Timer is time.Timer, of its size and alignment, with C at the same
// offset.
type Timer struct {
	// C is the channel on which the time is sent when the timer fires
	// (nil for AfterFunc).
	C <-chan time.Time
	// Padding, before the last field (a struct that ends with a field
	// of size zero is larger).
	_ [unsafe.Sizeof(time.Timer{}) - unsafe.Sizeof((<-chan time.Time)(nil)) - unsafe.Sizeof((*timerBox)(nil))]byte
	*timerBox
}

// timerBox is what a Timer stands on: the real timer outside a check, the
// timer of the checked program under one.
type timerBox struct {
	real *time.Timer
	t    *timer
}

// NewTimer is time.NewTimer.
//
//go:norace
func NewTimer(d time.Duration) *Timer {
	if th, ok := rt.Current(); ok {
		t := newTimer(th, d, 0, nil)
		return &Timer{C: t.c, timerBox: &timerBox{t: t}}
	}
	r := time.NewTimer(d)
	return &Timer{C: r.C, timerBox: &timerBox{real: r}}
}

// After is time.After.
//
//go:norace
func After(d time.Duration) <-chan time.Time { return NewTimer(d).C }

// AfterFunc is time.AfterFunc: f runs in its own goroutine when the timer
// fires.
//
//go:norace
func AfterFunc(d time.Duration, f func()) *Timer {
	if th, ok := rt.Current(); ok {
		return &Timer{timerBox: &timerBox{t: newTimer(th, d, 0, f)}}
	}
	return &Timer{timerBox: &timerBox{real: time.AfterFunc(d, f)}}
}

// Stop is time.Timer.Stop: it reports whether it stopped the timer before
// it fired (with synchronous channels, since Go 1.23: before its time was
// received).
//
//go:norace
func (t *Timer) Stop() bool {
	if t.t == nil {
		return t.real.Stop()
	}
	th, ok := rt.Current()
	if !ok {
		return false
	}
	return t.t.halt(th)
}

// Reset is time.Timer.Reset: the timer fires again after d. It reports
// what Stop would have.
//
//go:norace
func (t *Timer) Reset(d time.Duration) bool {
	if t.t == nil {
		return t.real.Reset(d)
	}
	th, ok := rt.Current()
	if !ok {
		return false
	}
	was := t.t.halt(th)
	t.t.arm(th, th.Now()+max(int64(d), 0))
	return was
}
