package time_test

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/lang"
	"github.com/stdbg/stdbg/sthread/sync/atomic"
	stime "github.com/stdbg/stdbg/sthread/time"
)

// timerAPI is the part of package time that the faithfulness scenarios
// use: the real package's, or sthread's (the virtual clock).
type timerAPI struct {
	newTimer  func(time.Duration) (c <-chan time.Time, stop func() bool, reset func(time.Duration) bool)
	afterFunc func(time.Duration, func()) (stop func() bool, reset func(time.Duration) bool)
	newTicker func(time.Duration) (c <-chan time.Time, stop func(), reset func(time.Duration))
	sleep     func(time.Duration)
	recv      func(<-chan time.Time)
	poll      func(<-chan time.Time) bool // a receive with a default case
	signal    func()
	signalled func()
}

func realTime() *timerAPI {
	ch := make(chan struct{}, 4)
	return &timerAPI{
		newTimer: func(d time.Duration) (<-chan time.Time, func() bool, func(time.Duration) bool) {
			t := time.NewTimer(d)
			return t.C, t.Stop, t.Reset
		},
		afterFunc: func(d time.Duration, f func()) (func() bool, func(time.Duration) bool) {
			t := time.AfterFunc(d, f)
			return t.Stop, t.Reset
		},
		newTicker: func(d time.Duration) (<-chan time.Time, func(), func(time.Duration)) {
			t := time.NewTicker(d)
			return t.C, t.Stop, t.Reset
		},
		sleep: time.Sleep,
		recv:  func(c <-chan time.Time) { <-c },
		poll: func(c <-chan time.Time) bool {
			select {
			case <-c:
				return true
			default:
				return false
			}
		},
		signal:    func() { ch <- struct{}{} },
		signalled: func() { <-ch },
	}
}

func checkedTime() *timerAPI {
	ch := make(chan struct{}, 4)
	return &timerAPI{
		newTimer: func(d time.Duration) (<-chan time.Time, func() bool, func(time.Duration) bool) {
			t := stime.NewTimer(d)
			return t.C, t.Stop, t.Reset
		},
		afterFunc: func(d time.Duration, f func()) (func() bool, func(time.Duration) bool) {
			t := stime.AfterFunc(d, f)
			return t.Stop, t.Reset
		},
		newTicker: func(d time.Duration) (<-chan time.Time, func(), func(time.Duration)) {
			t := stime.NewTicker(d)
			return t.C, t.Stop, t.Reset
		},
		sleep: stime.Sleep,
		recv:  func(c <-chan time.Time) { lang.ChanRecv(c) },
		poll: func(c <-chan time.Time) bool {
			return lang.SelectOf(true, lang.RecvCaseOf(c)) == 0
		},
		signal:    func() { lang.ChanSend(ch, struct{}{}) },
		signalled: func() { lang.ChanRecv(ch) },
	}
}

// timerScenarios are cases of package time's documentation whose outcome
// does not depend on how fast the machine is (a wait for a timer blocks
// until it fires; Stop and Reset report the same whether the timer fired
// long ago or just now).
var timerScenarios = []struct {
	name string
	run  func(api *timerAPI, say func(string, ...any))
	// syncOnly: with old-style channels the outcome depends on the
	// machine's speed (a tick may land in the buffer before Stop).
	syncOnly bool
}{
	{"a timer fires, then Stop and Reset report it expired", func(api *timerAPI, say func(string, ...any)) {
		c, stop, reset := api.newTimer(time.Millisecond)
		api.recv(c)
		say("stop %v", stop())
		say("reset %v", reset(time.Millisecond))
		api.recv(c)
		say("fired again")
	}, false},
	{"a timer stopped before it fires", func(api *timerAPI, say func(string, ...any)) {
		c, stop, reset := api.newTimer(time.Hour)
		say("stop %v, again %v", stop(), stop())
		say("value after stop: %v", api.poll(c))
		say("reset %v", reset(time.Millisecond))
		api.recv(c)
		say("fired after the reset")
	}, false},
	{"a fired timer whose value nobody received", func(api *timerAPI, say func(string, ...any)) {
		c, stop, _ := api.newTimer(time.Millisecond)
		api.sleep(20 * time.Millisecond)
		say("stop %v", stop())
		say("stale value after stop: %v", api.poll(c))
	}, false},
	{"Reset of a fired timer whose value nobody received", func(api *timerAPI, say func(string, ...any)) {
		c, stop, reset := api.newTimer(time.Millisecond)
		api.sleep(20 * time.Millisecond)
		say("reset %v", reset(time.Hour))
		// (An hour may pass before the next line: time passes at every
		// scheduling point. Stop first.)
		say("stop %v", stop())
		say("stale value after reset and stop: %v", api.poll(c))
	}, false},
	{"AfterFunc runs its function", func(api *timerAPI, say func(string, ...any)) {
		stop, reset := api.afterFunc(time.Millisecond, api.signal)
		api.signalled()
		say("stop after it ran: %v", stop())
		say("reset %v", reset(time.Millisecond))
		api.signalled()
		say("ran again")
	}, false},
	{"AfterFunc stopped in time", func(api *timerAPI, say func(string, ...any)) {
		stop, _ := api.afterFunc(time.Hour, func() { panic("a stopped AfterFunc ran") })
		say("stop %v, again %v", stop(), stop())
	}, false},
	{"a ticker ticks until stopped", func(api *timerAPI, say func(string, ...any)) {
		c, stop, reset := api.newTicker(time.Millisecond)
		for range 3 {
			api.recv(c)
		}
		stop()
		say("tick after stop: %v", api.poll(c))
		reset(time.Millisecond)
		api.recv(c)
		say("ticks again after reset")
		stop()
	}, true},
}

// The virtual clock's timers are held to the real package's observable
// behaviour (Go 1.23's synchronous timer channels, this module's go
// version) on the cases its documentation gives.
func TestTimersFaithful(t *testing.T) {
	async := strings.Contains(os.Getenv("GODEBUG"), "asynctimerchan=1")
	for _, sc := range timerScenarios {
		t.Run(sc.name, func(t *testing.T) {
			if async && sc.syncOnly {
				t.Skip("depends on the machine's speed with old-style timer channels")
			}
			var want []string
			sc.run(realTime(), func(f string, args ...any) { want = append(want, fmt.Sprintf(f, args...)) })
			var got []string
			res, err := sthread.Explore(func() {
				got = got[:0]
				sc.run(checkedTime(), func(f string, args ...any) { got = append(got, fmt.Sprintf(f, args...)) })
				sthread.Assert(slices.Equal(got, want), strings.Join(got, "; "))
			}, sthread.All())
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range res.Bugs {
				t.Errorf("on the virtual clock: %s\nwant: %s", b.Message, strings.Join(want, "; "))
			}
			if !res.Complete {
				t.Errorf("the check was not complete: %+v", res.Stats)
			}
		})
	}
}

// The same cases with the timer channels of Go before 1.23 (a buffer of
// one, Stop and Reset leave a value there), which a program built for an
// older go version gets (GODEBUG asynctimerchan=1): the test runs itself
// again with that setting, which the real package and sthread then both
// follow.
func TestTimersFaithfulAsync(t *testing.T) {
	if os.Getenv("STDBG_TIMERS_CHILD") != "" {
		t.Skip("the child runs TestTimersFaithful")
	}
	if testing.Short() {
		t.Skip("runs the test binary again")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTimersFaithful$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "GODEBUG=asynctimerchan=1", "STDBG_TIMERS_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("with asynctimerchan=1: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestTimersFaithful") {
		t.Fatalf("the child did not run the cases:\n%s", out)
	}
}

// TestPollingWithSleepsIsFinite: a goroutine that sleeps in a loop until
// another has set a flag does not sleep again before that one had its
// turn (fairness), so that every schedule is explored, none cut by the
// depth bound; the ticker that a Stop halts while its receiver loops does
// not win their race for ever (a Stop takes an instant).
func TestPollingWithSleepsIsFinite(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"polling with sleeps", func() {
			var flag atomic.Bool
			sthread.Go(func() { flag.Store(true) })
			for !flag.Load() {
				sthread.Sleep(time.Millisecond)
			}
		}},
		{"stopping a ticker while its receiver loops", func() {
			tick := stime.NewTicker(time.Millisecond)
			stop := make(chan struct{})
			done := make(chan struct{})
			sthread.Go(func() {
				defer lang.ChanClose(done)
				for lang.SelectOf(false, lang.RecvCaseOf(tick.C), lang.RecvCaseOf(stop)) == 0 {
				}
			})
			sthread.Sleep(3 * time.Millisecond)
			tick.Stop()
			lang.ChanClose(stop)
			lang.ChanRecv(done)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := sthread.Explore(tc.f, sthread.MaxExecutions(20000), sthread.NoSave())
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Bugs) > 0 || !res.Complete || res.DepthLimited {
				t.Errorf("bugs %v, complete %v, cut by the depth bound %v (%d executions), want no bug in a complete search of finite executions",
					res.Bugs, res.Complete, res.DepthLimited, res.Stats.Executions)
			}
		})
	}
}

// TestEveryStopIsOrdered: the default search (DPOR) runs every order of
// the Stops and Resets of one timer, including those in which a Stop
// finds the timer armed or idle. When a Stop was no step of its own, the
// goroutine's Stop below happened in the transition of its start,
// independent of main's, and the search ended "complete, no bug" without
// running the order in which the goroutine's Stop comes first and stops
// the timer (the first and last cases failed so; the Reset's new arming
// is a step, which ordered it already).
func TestEveryStopIsOrdered(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"two Stops of a zero timer", func() {
			tm := stime.NewTimer(0)
			sthread.Go(func() { sthread.Assert(!tm.Stop(), "the goroutine stopped the timer") })
			tm.Stop()
		}},
		{"a goroutine's Reset against main's Stop", func() {
			tm := stime.NewTimer(0)
			sthread.Go(func() { sthread.Assert(!tm.Reset(time.Hour), "the goroutine's Reset stopped the timer") })
			tm.Stop()
		}},
		{"two Stops of an AfterFunc", func() {
			tm := stime.AfterFunc(0, func() {})
			sthread.Go(func() { sthread.Assert(!tm.Stop(), "the goroutine stopped the timer") })
			tm.Stop()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := sthread.Explore(tc.f, sthread.MaxExecutions(20000), sthread.NoSave())
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Bugs) == 0 {
				t.Errorf("no bug in %d executions (complete %v), want the assertion that only the goroutine's Stop first fails", res.Stats.Executions, res.Complete)
			}
		})
	}
}
