package time_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
	scontext "github.com/stdbg/stdbg/sthread/context"
	"github.com/stdbg/stdbg/sthread/lang"
	stime "github.com/stdbg/stdbg/sthread/time"
)

// A timer fires while a goroutine that could run does not only while that
// goroutine has been kept waiting no longer than the stall bound
// (sthread.MaxStall, 50ms by default). A one-minute guard around a value
// already there, or a 200ms timeout beside a semaphore with room, never
// fires; a 10ms timeout that beats a worker about to answer does, and its
// report says how long the worker must be delayed. Each program shows its
// bug with no bound at all, so the bound, not the program, keeps it quiet.
func TestStallBound(t *testing.T) {
	tests := []struct {
		name string
		f    func()
		// bug: found with the default bound; stall: the delay its report
		// names; none: found with no bound; zero: found with a bound of 0.
		bug, none, zero bool
		stall           string
	}{
		{name: "a one-minute guard around a value already buffered", f: func() {
			ch := make(chan int, 1)
			lang.ChanSend(ch, 1)
			ctx, cancel := scontext.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if lang.SelectOf(false, lang.RecvCaseOf(ch), lang.RecvCaseOf(ctx.Done())) == 1 {
				sthread.Assert(false, "the guard fired while the value was there")
			}
		}, none: true},
		{name: "a semaphore with room and a 200ms timeout", f: func() {
			sem := make(chan struct{}, 1)
			acquired := make(chan bool, 2)
			for range 2 {
				sthread.Go(func() {
					ok := lang.SelectOf(false, lang.SendCaseOf(sem, struct{}{}), lang.RecvCaseOf(stime.After(200*time.Millisecond))) == 0
					if ok {
						lang.ChanRecv(sem) // release
					}
					lang.ChanSend(acquired, ok)
				})
			}
			first, second := lang.ChanRecv(acquired), lang.ChanRecv(acquired)
			sthread.Assert(first && second, "Acquire timed out with the semaphore free")
		}, none: true},
		{name: "a 10ms timeout beats a worker about to answer", f: func() {
			answer := make(chan int)
			sthread.Go(func() { lang.ChanSend(answer, 42) })
			lang.SelectOf(false, lang.RecvCaseOf(answer), lang.RecvCaseOf(stime.After(10*time.Millisecond)))
		}, bug: true, none: true, stall: "to stall >= 10ms"},
		{name: "a timeout while the worker sleeps needs no stall", f: func() {
			answer := make(chan int)
			sthread.Go(func() { stime.Sleep(20 * time.Millisecond); lang.ChanSend(answer, 42) })
			lang.SelectOf(false, lang.RecvCaseOf(answer), lang.RecvCaseOf(stime.After(10*time.Millisecond)))
		}, bug: true, none: true, zero: true},
		{name: "a 60ms timeout beats a worker about to answer", f: func() {
			answer := make(chan int)
			sthread.Go(func() { lang.ChanSend(answer, 42) })
			lang.SelectOf(false, lang.RecvCaseOf(answer), lang.RecvCaseOf(stime.After(60*time.Millisecond)))
		}, none: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range []struct {
				name  string
				opts  []sthread.Option
				found bool
			}{
				{"default", nil, tt.bug},
				{"none", []sthread.Option{sthread.MaxStall(-1)}, tt.none},
				{"zero", []sthread.Option{sthread.MaxStall(0)}, tt.zero},
			} {
				res, err := sthread.Explore(tt.f, c.opts...)
				if err != nil {
					t.Fatal(err)
				}
				if !res.Complete && len(res.Bugs) == 0 {
					t.Fatalf("%s: incomplete", c.name)
				}
				if got := len(res.Bugs) > 0; got != c.found {
					t.Errorf("bound %s: bug found %v, want %v (%v)", c.name, got, c.found, res.Bugs)
					continue
				}
				if c.found && c.name == "default" && tt.stall != "" {
					if b := res.Bugs[0]; b.Kind != search.Leak || !strings.Contains(b.String(), tt.stall) {
						t.Errorf("the report does not say %q:\n%s", tt.stall, b)
					}
				}
			}
		})
	}
}
