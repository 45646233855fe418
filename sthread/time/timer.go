package time

import (
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// timer is a timer or ticker under a check.
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
// Every Stop and Reset begins with a step of its own (see mark), in which
// it reads the timer's state: a timer not fired yet is stopped there (its
// goroutine finds a newer generation when it fires, and ends), in an order
// the search explores both ways since a TimerWait depends on every
// operation; a timer offering its time is asked to stop with a rendezvous
// that the receiver's rendezvous excludes.
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
	// mark is the timer's own channel, on which nothing is ever sent:
	// every step that reads or writes the timer's state outside a
	// TimerWait (which depends on every operation anyway) is a select
	// with default that receives from it (see touch), so that the search
	// orders those steps against one another. Without it a Stop of a
	// timer that is armed, or idle, was no step at all: it happened in
	// the transition of whatever the goroutine did before, which may be
	// independent of another goroutine's Stop, and the search missed the
	// schedules in which the two Stops ran in the other order.
	mark chan struct{}
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
func (t *timer) arm(th *rt.Thread, when int64) {
	t.gen++
	t.state, t.when = timerArmed, when
	if t.fn == nil {
		t.stop, t.taken = make(chan struct{}), make(chan struct{})
	}
	gen, stop, taken := t.gen, t.stop, t.taken
	th.SpawnOwn(func() { t.run(gen, stop, taken) }, t.fire)
}

// fire is the function that traces show a timer's goroutine running.
//
//go:norace
func (t *timer) fire() {}

// run is the goroutine of one arming of t.
//
//go:norace
func (t *timer) run(gen int, stop, taken chan struct{}) {
	th, ok := rt.EnterFree()
	if !ok {
		return
	}
	th.ShowAt(t.pcs)
	for {
		th.PointAt(syncmodel.Op{Kind: syncmodel.TimerWait, API: syncmodel.APITimerFire, Obj: t.chanID(th), Arg: t.when}, t.pcs)
		// Time passes to the timer's time, as the model's does (its clock
		// and the runtime's are one), whether the arming still fires or
		// was stopped: a wait for time is a moment time reaches, stopped
		// or not, and the stall bound holds it back like any other.
		th.Advance(t.when)
		if t.gen != gen || t.state != timerArmed {
			return // stopped
		}
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
		pc := rt.CheckedChan(t.c)
		drop := t.async && t.period == 0
		// The time sent is the clock as the timer's goroutine reads it
		// when it fires: later than its time, and than every reading
		// before the timer was made.
		sc := []rt.Case{pc.SendCase(Epoch.Add(time.Duration(th.Read()))), rt.CheckedChan(stop).RecvCase(nil, nil)}
		if drop {
			sc[1] = rt.Default()
		}
		if th.SelectAt(sc, syncmodel.Op{Kind: syncmodel.Select, API: syncmodel.APITimerFire}, t.pcs) == 1 && !drop {
			// Stop took the offer back. Another Stop may wait as well
			// (it read the state when the time was on offer): it finds
			// the timer done.
			t.closeTaken(th, taken)
			return
		}
		// The time was delivered: the timer's state changes in a step
		// ordered against Stop and Reset (when this select parked, its
		// wake is not).
		t.touch(th, syncmodel.APITimerFire, t.pcs)
		if t.gen == gen {
			// A timer is done once its time was delivered; a ticker
			// waits for its next tick.
			t.state = timerIdle
			if t.period != 0 {
				t.state = timerArmed
			}
		}
		// For a Stop waiting to know.
		t.closeTaken(th, taken)
		if t.gen != gen || t.period == 0 {
			return
		}
		taken = make(chan struct{})
		t.taken = taken
		// A ticker drops the ticks a slow receiver missed.
		now := th.Now()
		t.when += t.period
		if t.when <= now {
			t.when += (now - t.when) / t.period * t.period
			if t.when <= now {
				t.when += t.period
			}
		}
	}
}

// touch is a step of thread th that reads or writes t's state: a select
// with default receiving from t.mark, which never proceeds but depends on
// every other touch of t. It adds no instant at which time could pass:
// no time passes while a thread is about to touch a timer (a Select of
// API APITimerFire or APITimerHalt, see syncmodel's timeMayPass), so that
// a Stop happens in the instant of the code before it, as if the step
// were not there, and a timer's goroutine records that its time was taken
// in the instant it was.
//
//go:norace
func (t *timer) touch(th *rt.Thread, api syncmodel.API, pcs []uintptr) {
	th.SelectAt([]rt.Case{rt.CheckedChan(t.mark).RecvCase(nil, nil), rt.Default()}, syncmodel.Op{Kind: syncmodel.Select, API: api}, pcs)
}

// closeTaken closes an arming's taken channel, from its goroutine th: a
// Stop waiting to know whether the time was taken learns it.
//
//go:norace
func (t *timer) closeTaken(th *rt.Thread, taken chan struct{}) {
	tc := rt.CheckedChan(taken)
	_, id, _ := tc.Enter()
	th.PointAt(tc.Op(syncmodel.ChanClose, syncmodel.APITimerFire, id), t.pcs)
}

// chanID is the model's id of t's channel, 0 for AfterFunc: the TimerWait
// of its goroutine names it, so that a goroutine waiting on the channel is
// known to wait for a timer.
//
//go:norace
func (t *timer) chanID(th *rt.Thread) uint64 {
	if t.c == nil {
		return 0
	}
	return rt.CheckedChan(t.c).ID(th)
}

// halt stops the arming under way, for thread th, and reports whether the
// timer was armed or offering its time (it had not fired, or its time was
// not taken).
//
//go:norace
func (t *timer) halt(th *rt.Thread) bool {
	var buf [rt.FramesCap]uintptr
	t.touch(th, syncmodel.APITimerHalt, th.Capture(buf[:]))
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
			sc := []rt.Case{rt.CheckedChan(stop).SendCase(struct{}{}), rt.CheckedChan(taken).RecvCase(nil, nil)}
			if t.async && t.period == 0 {
				sc = sc[1:]
			}
			if th.SelectAt(sc, syncmodel.Op{Kind: syncmodel.Select, API: syncmodel.APITimerStop}, th.Capture(buf[:])) == 0 && len(sc) == 2 {
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

// newTimer makes a timer under a check for thread th.
//
//go:norace
func newTimer(th *rt.Thread, d time.Duration, period time.Duration, fn func()) *timer {
	var buf [rt.FramesCap]uintptr
	t := &timer{fn: fn, period: int64(period), async: asyncTimers(), mark: make(chan struct{})}
	if fn == nil {
		if t.async {
			t.c = make(chan time.Time, 1)
		} else {
			t.c = make(chan time.Time)
		}
	}
	t.pcs = append([]uintptr(nil), th.Capture(buf[:])...)
	t.arm(th, th.Now()+max(int64(d), 0))
	return t
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
