// Package time is the part of package time of the standard library that
// waits, for programs that stdbg checks: Sleep, timers, tickers and the
// clock, with the standard library's names. Under a check (sthread.Check,
// or stdbg find) they run on a clock of the execution that starts at Epoch:
// nothing waits for real time. Sleepers and timers wait for the time of
// timers, which moves only when a sleeping goroutine or a timer wakes; the
// time the program reads (Now, Since, Until) is that time plus ReadStep
// for every reading that happens before it, so that it moves on between
// two readings as a real clock does, and replays with the same values. A
// goroutine of a bubble of testing/synctest has its bubble's clock
// instead, as in Go: it starts at Epoch when the bubble begins, and
// readings are its time of timers exactly. A sleep or a timer is a
// TimerWait operation of the model, enabled when no earlier one is
// pending, so timers fire in the order of their times while a timer
// firing races with everything else: a timeout racing with a result is
// explored both ways.
//
// Each timer and ticker is a goroutine of its own under a check (shown in
// traces as a go at the line that made it): it waits for its time, then
// sends the time on its channel without blocking, or calls the function of
// AfterFunc.
//
// Outside a check every function is the standard library's, but for the
// clock in a process that stdbg runs: there Now reads a virtual clock of
// the process that starts at Epoch (see Now), so that a time read as a
// package is initialised is earlier than every time read by an execution,
// and replays read the same. stdbg's
// instrumentation of plain Go (package goinstr) rewrites the uses of these
// names of package time into uses of this package's; the rest of package
// time (Duration, Time, Parse, ...) is the standard library's, which this
// package's functions take and return.
package time

import (
	"time"

	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// Epoch is the time at which the virtual clock of every execution starts
// (in a process that stdbg runs, that clock starts after the readings the
// program took before the check: see Now), and the clock of every bubble
// of testing/synctest.
var Epoch = time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)

// ReadStep is how far each reading of the virtual clock (Now, Since,
// Until) moves it on for the goroutine that reads it: two readings in a
// row differ by at least ReadStep, as two readings of a real clock differ,
// and a reading costs no more time than one of a real clock takes (25 ns:
// 1,000 readings take 25 µs; only readings and timers move the clock).
// A reading is later than every reading that happens before it (in the
// memory model's sense: through a channel, a lock, a go statement, ...),
// and goroutines that nothing orders read times told apart by their
// thread ids, below ReadStep. (In a bubble of testing/synctest readings
// do not move the clock: they are its time exactly, as in Go.)
const ReadStep = time.Duration(rt.ReadStep)

// Now is time.Now. Under a check it reads the virtual clock: the time of
// timers (which moves when a sleeper or a timer wakes) plus ReadStep for
// every reading that happens before this one, this one included; in a
// bubble of testing/synctest, the bubble's time of timers exactly. The
// value depends only on the schedule: a replay reads the same times.
// Outside a check, in a process that stdbg runs (as the program's packages
// are initialised, in TestMain), it reads a virtual clock of the process
// that starts at Epoch and moves on by ReadStep per reading and by the
// time of each Sleep; the executions' clock then starts where that one
// stood when the first execution read the clock, so that readings taken
// before the check are earlier than the executions', and the same in the
// search and in its replay. Elsewhere, outside a check, Now is the
// standard library's, and executions start at Epoch.
//
//go:norace
func Now() time.Time {
	if th, ok := rt.Current(); ok {
		return Epoch.Add(time.Duration(th.Read()))
	}
	if at, ok := rt.OutsideRead(); ok {
		return Epoch.Add(time.Duration(at))
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
