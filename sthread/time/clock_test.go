package time_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/lang"
	ssync "github.com/stdbg/stdbg/sthread/sync"
	"github.com/stdbg/stdbg/sthread/sync/atomic"
	stime "github.com/stdbg/stdbg/sthread/time"
)

// after asserts, in the checked program, that later is after earlier.
func after(later, earlier time.Time, what string) {
	sthread.Assert(later.After(earlier), fmt.Sprintf("%s: %s is not after %s", what, later.Format(time.StampNano), earlier.Format(time.StampNano)))
}

// TestClockReadings checks what a reading of the virtual clock promises,
// in every schedule of each program (explored without reduction): two
// readings in a row differ, and a reading is later than every reading
// that happens before it, whatever orders the two (a channel, a lock, a
// go statement, ...), as on a real monotonic clock. Before readings moved
// the clock on, the clock stood still between wake-ups and the first case
// failed.
func TestClockReadings(t *testing.T) {
	cases := []struct {
		name string
		f    func()
	}{
		{"two readings in a row", func() {
			start := stime.Now()
			next := stime.Now()
			after(next, start, "second reading")
			sthread.Assert(stime.Since(start) > 0, "Since of a start is not positive")
			sthread.Assert(stime.Until(start) < 0, "Until of a start is not negative")
		}},
		{"unbuffered channel, both ways", func() {
			ch := make(chan time.Time)
			back := make(chan time.Time)
			sthread.Go(func() {
				lang.ChanSend(ch, stime.Now())
				lang.ChanSend(back, stime.Now())
			})
			t := lang.ChanRecv(ch)
			now := stime.Now()
			after(now, t, "after the receive")
			after(lang.ChanRecv(back), now, "a send after the receive that took the first")
		}},
		{"buffered channel", func() {
			ch := make(chan time.Time, 2)
			sthread.Go(func() {
				lang.ChanSend(ch, stime.Now())
				lang.ChanSend(ch, stime.Now())
			})
			first := lang.ChanRecv(ch)
			second := lang.ChanRecv(ch)
			after(second, first, "second value")
			after(stime.Now(), second, "after the receives")
		}},
		{"close", func() {
			done := make(chan struct{})
			var at time.Time
			sthread.Go(func() {
				at = stime.Now()
				lang.ChanClose(done)
			})
			lang.ChanRecv(done)
			after(stime.Now(), at, "after the close")
		}},
		{"select", func() {
			a, b := make(chan time.Time), make(chan time.Time, 1)
			sthread.Go(func() { lang.ChanSend(a, stime.Now()) })
			sthread.Go(func() { lang.ChanSend(b, stime.Now()) })
			for range 2 {
				ra, rb := lang.RecvCaseOf(a), lang.RecvCaseOf(b)
				var got time.Time
				if lang.SelectOf(false, ra, rb) == 0 {
					got = ra.Val()
				} else {
					got = rb.Val()
				}
				after(stime.Now(), got, "after the select")
			}
		}},
		{"mutex", func() {
			var mu ssync.Mutex
			var last time.Time
			var wg ssync.WaitGroup
			for range 2 {
				wg.Add(1)
				sthread.Go(func() {
					defer wg.Done()
					mu.Lock()
					now := stime.Now()
					after(now, last, "in the critical section")
					last = now
					mu.Unlock()
				})
			}
			wg.Wait()
			after(stime.Now(), last, "after Wait")
		}},
		{"rwmutex", func() {
			var mu ssync.RWMutex
			var at time.Time
			done := make(chan struct{})
			sthread.Go(func() {
				mu.Lock()
				at = stime.Now()
				mu.Unlock()
				lang.ChanClose(done)
			})
			mu.RLock()
			now, w := stime.Now(), at
			mu.RUnlock()
			if !w.IsZero() {
				after(now, w, "a reader after the writer")
			}
			lang.ChanRecv(done)
		}},
		{"once", func() {
			var once ssync.Once
			var at time.Time
			var wg ssync.WaitGroup
			for range 2 {
				wg.Add(1)
				sthread.Go(func() {
					defer wg.Done()
					once.Do(func() { at = stime.Now() })
					after(stime.Now(), at, "after Do")
				})
			}
			wg.Wait()
		}},
		{"atomic", func() {
			var flag atomic.Int32
			var at time.Time
			sthread.Go(func() {
				at = stime.Now()
				flag.Store(1)
			})
			if flag.Load() == 1 {
				after(stime.Now(), at, "after the load")
			}
		}},
		{"go statement", func() {
			start := stime.Now()
			done := make(chan struct{})
			sthread.Go(func() {
				after(stime.Now(), start, "in the new goroutine")
				lang.ChanClose(done)
			})
			lang.ChanRecv(done)
		}},
		{"sleep", func() {
			start := stime.Now()
			stime.Sleep(time.Millisecond)
			sthread.Assert(stime.Since(start) > time.Millisecond, "slept less than asked")
		}},
		{"timer's time", func() {
			start := stime.Now()
			got := lang.ChanRecv(stime.After(time.Millisecond))
			sthread.Assert(got.Sub(start) >= time.Millisecond, "the timer's time is early")
			after(stime.Now(), got, "after the timer's time")
		}},
		{"AfterFunc", func() {
			start := stime.Now()
			done := make(chan time.Time)
			stime.AfterFunc(time.Millisecond, func() { lang.ChanSend(done, stime.Now()) })
			sthread.Assert(lang.ChanRecv(done).Sub(start) > time.Millisecond, "AfterFunc ran early")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := sthread.Explore(c.f, sthread.NoReduction())
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Bugs) > 0 {
				t.Fatalf("%s", res.Bugs[0])
			}
		})
	}
}

// TestClockSameInEveryScheduleOfATrace checks that the times read depend
// on the happens-before order only: goroutines that nothing orders read
// the same times in every schedule (explored without reduction), so that
// a reducing search, which runs one schedule per trace, misses no
// behaviour that depends on a time read. A clock moved on by one counter
// of the execution fails: there, what a goroutine reads depends on how
// many readings the others made before it in the schedule.
func TestClockSameInEveryScheduleOfATrace(t *testing.T) {
	var runs [][3]time.Duration
	var cur [3]time.Duration
	res, err := sthread.Explore(func() {
		var wg ssync.WaitGroup
		for i := range 2 {
			wg.Add(1)
			sthread.Go(func() {
				defer wg.Done()
				var mu ssync.Mutex // a lock of its own: a scheduling point
				stime.Now()
				mu.Lock()
				cur[i] = stime.Since(stime.Epoch)
				mu.Unlock()
			})
		}
		wg.Wait()
		cur[2] = stime.Since(stime.Epoch)
		runs = append(runs, cur)
	}, sthread.NoReduction())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) > 0 || len(runs) < 2 {
		t.Fatalf("%d bugs, %d executions", len(res.Bugs), len(runs))
	}
	for _, r := range runs[1:] {
		if r != runs[0] {
			t.Fatalf("readings differ between schedules of one trace: %v and %v", runs[0], r)
		}
	}
	// Thread 1 read nothing before Wait, which orders both goroutines'
	// two readings before its own: the third after them.
	want := [3]time.Duration{2*stime.ReadStep + 2, 2*stime.ReadStep + 3, 3*stime.ReadStep + 1}
	if runs[0] != want {
		t.Errorf("readings %v, want %v", runs[0], want)
	}
	if !slices.IsSortedFunc(runs[0][:], func(a, b time.Duration) int { return int(a - b) }) {
		t.Errorf("readings out of order: %v", runs[0])
	}
}

// TestReadingsCost checks what a reading of the clock costs in time: no
// more than in Go, where time.Now takes tens of nanoseconds, so that a
// test that times code doing nothing but read the clock (an unlimited rate
// limiter's Take is a time.Now) passes in every execution, as it does in
// Go on a machine that does not stall it. go.uber.org/ratelimit's
// TestUnlimited allows 1,000 Takes a millisecond: it failed in every
// execution while a reading cost 1 µs. Readings still move the clock on.
func TestReadingsCost(t *testing.T) {
	type limiter interface{ Take() time.Time }
	cases := []struct {
		name  string
		reads int
		limit time.Duration
	}{
		{"ratelimit's TestUnlimited: 1,000 Takes in 1ms", 1000, time.Millisecond},
		{"10,000 readings in 1ms", 10000, time.Millisecond},
		{"one reading is later than the start", 1, time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := sthread.Explore(func() {
				var rl limiter = unlimited{}
				start := stime.Now()
				var last time.Time
				for range c.reads {
					last = rl.Take()
				}
				after(last, start, "the last Take")
				took := stime.Since(start)
				sthread.Assert(took < c.limit, fmt.Sprintf("%d readings took %v, not under %v", c.reads, took, c.limit))
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Bugs) > 0 || !res.Complete {
				t.Fatalf("complete %v, bugs: %v", res.Complete, res.Bugs)
			}
		})
	}
}

// unlimited is go.uber.org/ratelimit's limiter without a limit.
type unlimited struct{}

func (unlimited) Take() time.Time { return stime.Now() }
