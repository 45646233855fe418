package sthread

import (
	"os"
	"runtime/debug"
	"strings"
	"sync"
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
		th.sleepUntil(th.ex.now+int64(d), 0, syncmodel.APITimeSleep, th.capture(buf[:]))
		return
	}
	time.Sleep(d)
}

// sleepUntil waits until the virtual clock reaches at, reported at pcs.
//
//go:norace
func (th *thread) sleepUntil(at int64, obj uint64, api syncmodel.API, pcs []uintptr) {
	th.pointAt(syncmodel.Op{Kind: syncmodel.TimerWait, API: api, Obj: obj, Arg: at}, pcs)
	if at > th.ex.now {
		th.ex.now = at
	}
}

// timer is a timer or ticker under Check.
//
// Each arming runs a goroutine of sthread's own (shown where the timer was
// made) that waits for the timer's time (a TimerWait, whose Obj is the
// timer's channel) and then fires: it calls AfterFunc's function in
// itself, or delivers the time on the channel.
//
// Delivery follows the Go version the program was built for (GODEBUG
// asynctimerchan, see asyncTimers). Since Go 1.23 a timer's channel is
// synchronous: the goroutine offers the time until a receiver takes it,
// and Stop or Reset take the offer back, so that no stale value is
// received after they return. Before, the channel had a buffer of one: the
// time was put there at once, or dropped if the buffer was full, and Stop
// and Reset left it there.
//
// Stop and Reset decide what they report in the transition where they are
// called: a timer not fired yet is stopped there (its goroutine finds a
// newer generation when it fires, and ends), in an order the search
// explores both ways since a TimerWait depends on every operation; a timer
// offering its time is asked to stop with a rendezvous that the receiver's
// rendezvous excludes.
type timer struct {
	c      chan time.Time
	fn     func() // AfterFunc's function
	period int64  // a ticker's period; 0 for a timer
	when   int64  // the virtual time it fires next
	gen    int    // bumped by Stop and Reset: a goroutine of an older arming ends
	state  timerState
	async  bool      // the channel has a buffer (GODEBUG asynctimerchan=1)
	pcs    []uintptr // where it was made: its goroutine's operations are shown there
	// stop and taken (synchronous channels) belong to the arming under
	// way: Stop sends on stop to take back the time offered; the
	// goroutine closes taken once a receiver took the time it offered.
	stop, taken chan struct{}
}

// timerState is where a timer is in its arming.
type timerState int

const (
	timerIdle     timerState = iota // stopped, or fired and done
	timerArmed                      // waiting for its time
	timerOffering                   // fired: offering its time on its channel (synchronous channels)
)

// arm starts the goroutine of t, firing at when, from thread th.
//
//go:norace
func (t *timer) arm(th *thread, when int64) {
	t.gen++
	t.state, t.when = timerArmed, when
	if t.fn == nil {
		t.stop, t.taken = make(chan struct{}), make(chan struct{})
	}
	gen, stop, taken := t.gen, t.stop, t.taken
	th.spawn(func() { t.run(gen, stop, taken) }, t.fire, true)
}

// fire is the function that traces show a timer's goroutine running.
//
//go:norace
func (t *timer) fire() {}

// run is the goroutine of one arming of t.
//
//go:norace
func (t *timer) run(gen int, stop, taken chan struct{}) {
	th, ok := enterFree()
	if !ok {
		return
	}
	th.origin = t.pcs
	for {
		th.pointAt(syncmodel.Op{Kind: syncmodel.TimerWait, API: syncmodel.APITimerFire, Obj: t.chanID(th), Arg: t.when}, t.pcs)
		if t.gen != gen || t.state != timerArmed {
			// Stopped: the time of an arming that no longer fires does
			// not pass.
			return
		}
		th.ex.now = max(th.ex.now, t.when)
		if t.fn != nil {
			t.state = timerIdle
			t.fn()
			return
		}
		// The time goes to a receiver, or into the buffer of an
		// old-style channel (a timer's is dropped if it is full), or it
		// is offered until a receiver takes it or Stop takes it back. An
		// old-style ticker's waits for room, as if the ticks missed
		// meanwhile were dropped: a ticker that nobody receives from does
		// not tick for ever. No time passes before this select runs.
		t.state = timerOffering
		pc, _ := plainChan(t.c)
		drop := t.async && t.period == 0
		sc := []SelectCase{pc.SendCase(Epoch.Add(time.Duration(t.when))), checkedChan(stop).RecvCase(nil, nil)}
		if drop {
			sc[1] = Default()
		}
		if selectOp(th, sc, syncmodel.Op{Kind: syncmodel.Select, API: syncmodel.APITimerFire}, t.pcs) == 1 && !drop {
			// Stop took the offer back. Another Stop may wait as well
			// (it read the state when the time was on offer): it finds
			// the timer done.
			th.pointAt(checkedChan(taken).op(syncmodel.ChanClose, syncmodel.APITimerFire, t.takenID(th, taken)), t.pcs)
			return
		}
		if t.gen == gen {
			// A timer is done once its time was delivered; a ticker
			// waits for its next tick.
			t.state = timerIdle
			if t.period != 0 {
				t.state = timerArmed
			}
		}
		// For a Stop waiting to know.
		th.pointAt(checkedChan(taken).op(syncmodel.ChanClose, syncmodel.APITimerFire, t.takenID(th, taken)), t.pcs)
		if t.gen != gen || t.period == 0 {
			return
		}
		taken = make(chan struct{})
		t.taken = taken
		// A ticker drops the ticks a slow receiver missed.
		now := th.ex.now
		t.when += t.period
		if t.when <= now {
			t.when += (now - t.when) / t.period * t.period
			if t.when <= now {
				t.when += t.period
			}
		}
	}
}

// takenID is the model's id of an arming's taken channel.
//
//go:norace
func (t *timer) takenID(th *thread, taken chan struct{}) uint64 {
	_, id, _ := checkedChan(taken).enter()
	return id
}

// checkedChan returns the Chan that stands for c under the checker.
//
//go:norace
func checkedChan[T any](c chan T) Chan[T] {
	pc, _ := plainChan(c)
	return pc
}

// chanID is the model's id of t's channel, 0 for AfterFunc: the TimerWait
// of its goroutine names it, so that a goroutine waiting on the channel is
// known to wait for a timer.
//
//go:norace
func (t *timer) chanID(th *thread) uint64 {
	if t.c == nil {
		return 0
	}
	pc, _ := plainChan(t.c)
	if pc.s == nil {
		return 0
	}
	id, _ := pc.s.model(th.ex)
	return id
}

// halt stops the arming under way, for thread th, and reports whether the
// timer was armed or offering its time (it had not fired, or its time was
// not taken).
//
//go:norace
func (t *timer) halt(th *thread) bool {
	for {
		switch t.state {
		case timerArmed:
			t.gen++
			t.state = timerIdle
			return true
		case timerOffering:
			// The goroutine fired and delivers, or offers, its time on
			// t.c, and accepts a request to stop: either this rendezvous
			// or a receiver's comes first (an old-style timer's time
			// goes into the buffer at once: wait until it did). The
			// state was read before this scheduling point: once it
			// returns, in its own transition, it is read again (a
			// ticker may have fired again meanwhile).
			stop, taken := t.stop, t.taken
			var buf [framesCap]uintptr
			sc := []SelectCase{checkedChan(stop).SendCase(struct{}{}), checkedChan(taken).RecvCase(nil, nil)}
			if t.async && t.period == 0 {
				sc = sc[1:]
			}
			if selectOp(th, sc, syncmodel.Op{Kind: syncmodel.Select, API: syncmodel.APITimerStop}, th.capture(buf[:])) == 0 && len(sc) == 2 {
				t.gen++
				t.state = timerIdle
				return true
			}
			if t.period == 0 {
				return false // a timer's time was taken: it is done
			}
		default:
			return false
		}
	}
}

// newTimer makes a timer under Check for thread th.
//
//go:norace
func newTimer(th *thread, d time.Duration, period time.Duration, fn func()) *timer {
	var buf [framesCap]uintptr
	t := &timer{fn: fn, period: int64(period), async: asyncTimers()}
	if fn == nil {
		if t.async {
			t.c = make(chan time.Time, 1)
		} else {
			t.c = make(chan time.Time)
		}
	}
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
// it fired (with synchronous channels, since Go 1.23: before its time was
// received).
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
	th, ok := checkedThread()
	if !ok {
		return false
	}
	was := t.t.halt(th)
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
	if th, ok := checkedThread(); ok {
		t.t.halt(th)
		t.t.period = int64(d)
		t.t.arm(th, th.ex.now+int64(d))
	}
}

var (
	asyncOnce sync.Once
	asyncOn   bool
)

// asyncTimers reports whether timer channels have a buffer, as before Go
// 1.23: GODEBUG asynctimerchan=1, from the environment or, by default, the
// go version of the program's main module (recorded in its build).
func asyncTimers() bool {
	asyncOnce.Do(func() {
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				if s.Key == "DefaultGODEBUG" {
					asyncOn = godebugOn(s.Value, "asynctimerchan", asyncOn)
				}
			}
		}
		asyncOn = godebugOn(os.Getenv("GODEBUG"), "asynctimerchan", asyncOn)
	})
	return asyncOn
}

// godebugOn returns the value of setting key ("1" or not) in a GODEBUG
// list, the last one winning, or def if the list does not set it.
func godebugOn(list, key string, def bool) bool {
	for _, kv := range strings.Split(list, ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok && k == key {
			def = v == "1"
		}
	}
	return def
}
