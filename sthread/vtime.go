package sthread

import (
	"time"

	"github.com/stdbg/stdbg/syncmodel"
)

// Virtual time. Under Check, time.Sleep, timers, tickers and Now run on a
// clock of the execution that starts at Epoch and moves only when a
// sleeping goroutine or a timer wakes: nothing waits for real time. A
// sleep or a timer is a TimerWait operation of the model, enabled when no
// earlier one is pending, so timers fire in the order of their times while
// a timer firing races with everything else: a timeout racing with a
// result is explored both ways.
//
// Each timer and ticker is a goroutine of its own under Check (shown in
// traces as a go at the line that made it): it waits for its time, then
// sends the time on its channel without blocking, or calls the function of
// AfterFunc.
//
// Outside Check every function is time's.

// Epoch is the time at which the virtual clock of every execution starts.
var Epoch = time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)

// checkedThread returns the calling goroutine's thread under Check.
//
//go:norace
func checkedThread() (*thread, bool) {
	if !hooked.Load() {
		return nil, false
	}
	return enterFree()
}

// Now is time.Now: the virtual clock under Check.
//
//go:norace
func Now() time.Time {
	if th, ok := checkedThread(); ok {
		return Epoch.Add(time.Duration(th.ex.now))
	}
	return time.Now()
}

// Since is time.Since on the clock of Now.
//
//go:norace
func Since(t time.Time) time.Duration { return Now().Sub(t) }

// Until is time.Until on the clock of Now.
//
//go:norace
func Until(t time.Time) time.Duration { return t.Sub(Now()) }

// TimeSleep is time.Sleep: under Check it waits until the virtual clock
// reaches now+d, a scheduling point that lets every earlier timer fire
// first. A d <= 0 is a plain scheduling point.
//
//go:norace
func TimeSleep(d time.Duration) {
	if th, ok := checkedThread(); ok {
		if d <= 0 {
			th.point(syncmodel.Op{Kind: syncmodel.Yield, API: syncmodel.APITimeSleep})
			return
		}
		var buf [framesCap]uintptr
		th.sleepUntil(th.ex.now+int64(d), syncmodel.APITimeSleep, th.capture(buf[:]))
		return
	}
	time.Sleep(d)
}

// sleepUntil waits until the virtual clock reaches at, reported at pcs.
//
//go:norace
func (th *thread) sleepUntil(at int64, api syncmodel.API, pcs []uintptr) {
	th.pointAt(syncmodel.Op{Kind: syncmodel.TimerWait, API: api, Arg: at}, pcs)
	if at > th.ex.now {
		th.ex.now = at
	}
}

// timer is a timer or ticker under Check.
type timer struct {
	c      chan time.Time
	fn     func()    // AfterFunc's function
	period int64     // a ticker's period; 0 for a timer
	when   int64     // the virtual time it fires next
	gen    int       // bumped by Stop and Reset: a goroutine of an older arming ends
	active bool      // armed and not yet fired (a timer) or not stopped (a ticker)
	pcs    []uintptr // where it was made: its goroutine's operations are shown there
}

// arm starts the goroutine of t, firing at when, from thread th.
//
//go:norace
func (t *timer) arm(th *thread, when int64) {
	t.gen++
	t.active, t.when = true, when
	gen := t.gen
	th.spawnAs(func() { t.run(gen) }, t.fire)
}

// fire is the function that traces show a timer's goroutine running.
//
//go:norace
func (t *timer) fire() {}

// run is the goroutine of one arming of t.
//
//go:norace
func (t *timer) run(gen int) {
	th, ok := enterFree()
	if !ok {
		return
	}
	th.origin = t.pcs
	for {
		th.sleepUntil(t.when, syncmodel.APITimerFire, t.pcs)
		if t.gen != gen || !t.active {
			return
		}
		if t.fn != nil {
			t.active = false
			t.fn()
			return
		}
		pc, _ := plainChan(t.c)
		var sc [2]SelectCase
		sc[0], sc[1] = pc.SendCase(Epoch.Add(time.Duration(t.when))), Default()
		selectAt(th, sc[:], t.pcs)
		if t.period == 0 {
			t.active = false
			return
		}
		t.when += t.period
	}
}

// drain removes a value the timer sent and nobody received, as Go's timers
// do on Stop and Reset, and reports whether there was one.
//
//go:norace
func (t *timer) drain(th *thread) bool {
	pc, _ := plainChan(t.c)
	if pc.s == nil {
		return false
	}
	pc.s.sync(th.ex)
	if len(pc.s.buf)-pc.s.head == 0 {
		return false
	}
	var buf [framesCap]uintptr
	sc := []SelectCase{pc.RecvCase(nil, nil), Default()}
	return selectAt(th, sc, th.capture(buf[:])) == 0
}

// newTimer makes a timer under Check for thread th.
//
//go:norace
func newTimer(th *thread, d time.Duration, period time.Duration, fn func()) *timer {
	var buf [framesCap]uintptr
	t := &timer{c: make(chan time.Time, 1), fn: fn, period: int64(period)}
	t.pcs = append([]uintptr(nil), th.capture(buf[:])...)
	t.arm(th, th.ex.now+max(int64(d), 0))
	return t
}

// Timer is time.Timer.
type Timer struct {
	// C is the channel on which the time is sent when the timer fires
	// (nil for AfterFunc).
	C    <-chan time.Time
	real *time.Timer
	t    *timer
}

// NewTimer is time.NewTimer.
//
//go:norace
func NewTimer(d time.Duration) *Timer {
	if th, ok := checkedThread(); ok {
		t := newTimer(th, d, 0, nil)
		return &Timer{C: t.c, t: t}
	}
	r := time.NewTimer(d)
	return &Timer{C: r.C, real: r}
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
	if th, ok := checkedThread(); ok {
		return &Timer{t: newTimer(th, d, 0, f)}
	}
	return &Timer{real: time.AfterFunc(d, f)}
}

// Stop is time.Timer.Stop: it reports whether it stopped the timer before
// it fired (or before its value was received).
//
//go:norace
func (t *Timer) Stop() bool {
	if t.t == nil {
		return t.real.Stop()
	}
	th, ok := checkedThread()
	if !ok {
		return false
	}
	was := t.t.active
	t.t.active = false
	t.t.gen++
	if t.t.fn == nil && t.t.drain(th) {
		was = true
	}
	return was
}

// Reset is time.Timer.Reset: the timer fires again after d.
//
//go:norace
func (t *Timer) Reset(d time.Duration) bool {
	if t.t == nil {
		return t.real.Reset(d)
	}
	th, ok := checkedThread()
	if !ok {
		return false
	}
	was := t.Stop()
	t.t.arm(th, th.ex.now+max(int64(d), 0))
	return was
}

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
	if th, ok := checkedThread(); ok {
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
	if th, ok := checkedThread(); ok {
		t.t.active = false
		t.t.gen++
		t.t.drain(th)
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
	if th, ok := checkedThread(); ok {
		t.Stop()
		t.t.period = int64(d)
		t.t.arm(th, th.ex.now+int64(d))
	}
}
