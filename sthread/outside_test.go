package sthread_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	stdatomic "sync/atomic"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/lang"
	ssync "github.com/stdbg/stdbg/sthread/sync"
)

// What runs outside the check — goroutines that a go statement of the
// program started before it, channels that code stdbg does not see closed
// or filled — is not a bug of the program: a channel closed outside the
// check is closed in the model too, and a verdict that something outside
// the model could contradict (a deadlock, a leak, a race with such a
// goroutine) is not given: the search stops with search.ErrCannotJudge,
// saying what. Before, each of these was reported as a bug of a correct
// program (a deadlock, or a crash for the mutex).
func TestOutsideTheCheck(t *testing.T) {
	tests := []struct {
		name  string
		setup func() (f func(), cleanup func()) // runs outside the check
		judge bool                              // the search judges the program (and finds no bug)
		match string                            // a regular expression the error matches, when it cannot judge
		want  []string                          // in the error, when it cannot judge
	}{
		{
			name: "a server started before the check",
			setup: func() (func(), func()) {
				requests := make(chan chan int)
				done := make(chan struct{})
				sthread.Go(func() { // as a package's initialisation would
					defer close(done)
					for reply := range lang.ChanRange(requests) {
						lang.ChanSend(reply, 42)
					}
				})
				return func() {
					reply := make(chan int)
					lang.ChanSend(requests, reply)
					sthread.Assert(lang.ChanRecv(reply) == 42, "wrong answer")
				}, func() { close(requests); waitEnded(done) }
			},
			// The server may not have run yet when the check begins (it is
			// then "a goroutine not yet running"), and a goroutine another
			// test started outside its check may still be ending: then two
			// are named.
			match: `no thread can go on: thread 1 is blocked, but (a goroutine|\d+ goroutines) that stdbg does not control (is|are) alive`,
			want:  []string{"started at outside_test.go:", "before the check"},
		},
		{
			name: "a mutex that a goroutine started before the check uses",
			setup: func() (func(), func()) {
				var mu ssync.Mutex
				var n stdatomic.Int64 // (the critical sections must not be empty)
				stop := make(chan struct{})
				sthread.Go(func() {
					for {
						select {
						case <-stop:
							return
						default:
						}
						mu.Lock()
						n.Add(1)
						mu.Unlock()
						time.Sleep(time.Millisecond)
					}
				})
				return func() {
					mu.Lock()
					n.Add(1)
					mu.Unlock()
					// The other goroutine wakes meanwhile (real time,
					// in the transition).
					time.Sleep(100 * time.Millisecond)
					mu.Lock()
					n.Add(1)
					mu.Unlock()
				}, func() { close(stop) }
			},
			want: []string{"started at outside_test.go:", "used a mutex of the checked program"},
		},
		{
			name: "a channel closed before the check",
			setup: func() (func(), func()) {
				done := make(chan struct{})
				close(done)
				return func() {
					_, ok := lang.ChanRecv2(done)
					sthread.Assert(!ok, "a value from a closed channel")
				}, nil
			},
			judge: true,
		},
		{
			name: "a context made before the check, cancelled in it",
			setup: func() (func(), func()) {
				ctx, cancel := context.WithCancel(context.Background())
				return func() {
					var wg ssync.WaitGroup
					wg.Add(1)
					sthread.Go(func() {
						defer wg.Done()
						lang.ChanRecv(ctx.Done()) // closed by the standard library's cancel
					})
					cancel()
					wg.Wait()
				}, cancel
			},
			judge: true,
		},
		{
			name: "a buffer filled before the check",
			setup: func() (func(), func()) {
				tokens := make(chan struct{}, 1)
				tokens <- struct{}{}
				return func() { lang.ChanRecv(tokens) }, nil
			},
			want: []string{"the channel that thread 1 waits on at outside_test.go:", "holds a value put in outside the check"},
		},
		{
			name: "a timer made before the check",
			setup: func() (func(), func()) {
				tm := time.NewTimer(time.Hour)
				return func() { lang.ChanRecv(tm.C) }, func() { tm.Stop() }
			},
			want: []string{"is the channel of a timer made outside the check"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, cleanup := tt.setup()
			if cleanup != nil {
				defer cleanup()
			}
			res, err := sthread.Explore(f, sthread.Timeout(5*time.Second))
			if tt.judge {
				if err != nil || len(res.Bugs) > 0 {
					t.Fatalf("a correct program: err %v, bugs %v", err, res.Bugs)
				}
				return
			}
			if !errors.Is(err, search.ErrCannotJudge) {
				t.Fatalf("err = %v, want search.ErrCannotJudge; bugs %v", err, res.Bugs)
			}
			if tt.match != "" && !regexp.MustCompile(tt.match).MatchString(err.Error()) {
				t.Errorf("the error does not match %q:\n%v", tt.match, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// waitEnded waits, a minute at most, for a goroutine a test started
// outside its check to end (done closed), so that the next test's check
// does not find it still alive.
func waitEnded(done <-chan struct{}) {
	select {
	case <-done:
	case <-time.After(time.Minute):
	}
}
