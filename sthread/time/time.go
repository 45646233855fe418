// Package time is the part of package time of the standard library that
// waits, for programs that stdbg checks: Sleep, timers, tickers and the
// clock, with the standard library's names. Under a check (sthread.Check,
// or stdbg find) they run on a clock of the execution that starts at Epoch
// and moves only when a sleeping goroutine or a timer wakes: nothing waits
// for real time. A sleep or a timer is a TimerWait operation of the model,
// enabled when no earlier one is pending, so timers fire in the order of
// their times while a timer firing races with everything else: a timeout
// racing with a result is explored both ways.
//
// Each timer and ticker is a goroutine of its own under a check (shown in
// traces as a go at the line that made it): it waits for its time, then
// sends the time on its channel without blocking, or calls the function of
// AfterFunc.
//
// Outside a check every function is the standard library's. stdbg's
// instrumentation of plain Go (package goinstr) rewrites the uses of these
// names of package time into uses of this package's; the rest of package
// time (Duration, Time, Parse, ...) is the standard library's, which this
// package's functions take and return.
package time

import (
	"time"

	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// Epoch is the time at which the virtual clock of every execution starts.
var Epoch = time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)

// Now is time.Now: the virtual clock under a check.
//
//go:norace
func Now() time.Time {
	if th, ok := rt.Current(); ok {
		return Epoch.Add(time.Duration(th.Now()))
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
