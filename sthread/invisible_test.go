package sthread_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/internal/rtnames"
	"github.com/stdbg/stdbg/sthread"
	scontext "github.com/stdbg/stdbg/sthread/context"
	"github.com/stdbg/stdbg/sthread/internal/rt"
	"github.com/stdbg/stdbg/sthread/lang"
	srand "github.com/stdbg/stdbg/sthread/math/rand"
	srand2 "github.com/stdbg/stdbg/sthread/math/rand/v2"
	ssync "github.com/stdbg/stdbg/sthread/sync"
	"github.com/stdbg/stdbg/sthread/sync/atomic"
	stime "github.com/stdbg/stdbg/sthread/time"
)

// invisibleEnv marks the process that TestOwnStateInvisible starts.
const invisibleEnv = "STDBG_TEST_INVISIBLE"

// correct are programs that every goroutine of which orders its accesses
// to what it shares with the others as Go's memory model asks, written as
// stdbg's instrumentation of plain Go writes them (the channel operations,
// selects, map ranges and random numbers through sthread's packages): the
// race detector has nothing to report in them, whatever the schedule.
var correct = map[string]func(){
	// Three goroutines each send two values into a channel with room for
	// two: the ring wraps around as receives free its slots.
	"buffer wraps": func() {
		c := make(chan int, 2)
		for i := 1; i <= 3; i++ {
			sthread.Go(func() {
				lang.ChanSend(c, i)
				lang.ChanSend(c, 10*i)
			})
		}
		s := 0
		for range 6 {
			s += lang.ChanRecv(c)
		}
		sthread.Assert(s == 66, "sum")
	},
	// The same through selects, and a typed channel of sthread's own.
	"buffer wraps in selects": func() {
		c := make(chan int, 1)
		stop := make(chan struct{})
		typed := sthread.MakeChan[string](1)
		for i := 1; i <= 2; i++ {
			sthread.Go(func() {
				lang.SelectOf(false, lang.SendCaseOf(c, i), lang.RecvCaseOf(stop))
				typed.Send(fmt.Sprint(i))
			})
		}
		s := 0
		for range 2 {
			r := lang.RecvCaseOf(c)
			lang.SelectOf(false, r)
			s += r.Val()
			typed.Recv()
		}
		lang.ChanClose(stop)
		sthread.Assert(s == 3, "sum")
	},
	// Two goroutines each range over a map of their own: the order of
	// both comes from one generator of the execution.
	"map ranges": func() {
		var wg ssync.WaitGroup
		ws := make([]int, 2)
		for g := range 2 {
			wg.Add(1)
			sthread.Go(func() {
				defer wg.Done()
				m := map[int]int{1: 1, 2: 2, 3: 3}
				for next, k, v, ok := lang.MapRangeLoop(m); ok; k, v, ok = next() {
					ws[g] += k * v
				}
			})
		}
		wg.Wait()
		sthread.Assert(ws[0] == 14 && ws[1] == 14, "weights")
	},
	// Goroutines draw from the shared generators of math/rand and
	// math/rand/v2, which are safe for concurrent use.
	"random numbers": func() {
		var wg ssync.WaitGroup
		for g := range 2 {
			wg.Add(1)
			sthread.Go(func() {
				defer wg.Done()
				b := make([]byte, 9)
				//lint:ignore SA1019 the mirror of a function programs still call
				srand.Read(b)
				p := srand.Perm(3)
				srand.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
				if g == 0 {
					//lint:ignore SA1019 the mirror of a function programs still call
					srand.Seed(7)
				}
				_ = srand.Intn(10) + srand2.IntN(10) + srand2.N(5) + int(srand.Int63()&1)
				srand2.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
			})
		}
		wg.Wait()
	},
	// Timers, sleeps and contexts on the virtual clock, used from
	// several goroutines.
	"timers and contexts": func() {
		ctx, cancel := scontext.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c := make(chan int, 1)
		sthread.Go(func() {
			stime.Sleep(time.Millisecond)
			lang.ChanSend(c, 1)
		})
		t := stime.NewTimer(time.Hour)
		r := lang.RecvCaseOf(c)
		// (Which case wins is not the point: time may pass while a
		// goroutine is runnable.)
		if lang.SelectOf(false, r, lang.RecvCaseOf(ctx.Done()), lang.RecvCaseOf(t.C)) != 0 {
			lang.ChanRecv(c)
		}
		t.Stop()
		_ = stime.Since(stime.Now())
	},
	// AfterFunc, tickers, Reset, context.AfterFunc and deadlines.
	"timer functions": func() {
		fired := make(chan int, 3)
		af := stime.AfterFunc(time.Millisecond, func() { lang.ChanSend(fired, 1) })
		tk := stime.NewTicker(time.Millisecond)
		lang.ChanRecv(tk.C)
		tk.Stop()
		if !af.Reset(time.Millisecond) {
			lang.ChanRecv(fired)
		}
		ctx, cancel := scontext.WithDeadline(context.Background(), stime.Now().Add(time.Millisecond))
		stop := scontext.AfterFunc(ctx, func() { lang.ChanSend(fired, 2) })
		lang.ChanRecv(ctx.Done())
		cancel()
		if !stop() {
			lang.ChanRecv(fired)
		}
		lang.ChanRecv(fired)
	},
	// Once, Cond, sync.Map and atomics.
	"sync": func() {
		var once ssync.Once
		var m ssync.Map
		var n atomic.Int64
		var mu ssync.Mutex
		cond := ssync.NewCond(&mu)
		ready := false
		var wg ssync.WaitGroup
		for g := range 2 {
			wg.Add(1)
			sthread.Go(func() {
				defer wg.Done()
				once.Do(func() { n.Add(10) })
				m.Store(g, g)
				n.Add(1)
				mu.Lock()
				for !ready {
					cond.Wait()
				}
				mu.Unlock()
			})
		}
		mu.Lock()
		ready = true
		cond.Broadcast()
		mu.Unlock()
		wg.Wait()
		sthread.Assert(n.Load() == 12, "count")
	},
}

// crashing are programs whose every schedule ends in a panic, which stdbg
// describes, with package fmt, the next execution's goroutines using it
// too.
var crashing = map[string]func(){
	"a panic of a value fmt prints": func() {
		got := sthread.MakeChan[string](1)
		sthread.Go(func() { got.Send(fmt.Sprint([]int{1, 2})) })
		panic(struct{ S string }{got.Recv()})
	},
}

// racy are programs with a race of their own whose accesses are made in
// functions that stdbg's runtime or mirrors call (a timer's function, the
// goroutines it starts, context.AfterFunc's, Once.Do's, Shuffle's swap,
// sync.Map's Range, a map range's body, the Error method of a panic's
// value): the suppressions that keep stdbg's own state out of the
// detector's reports must keep none of these out.
var racy = map[string]func(){
	"two goroutines started in a timer's function": func() {
		x := 0
		done := make(chan int, 2)
		stime.AfterFunc(time.Millisecond, func() {
			for range 2 {
				sthread.Go(func() {
					x++
					lang.ChanSend(done, 1)
				})
			}
		})
		lang.ChanRecv(done)
		lang.ChanRecv(done)
	},
	"a timer's function and the checked function": func() {
		x := 0
		done := make(chan int, 1)
		stime.AfterFunc(time.Millisecond, func() {
			x++
			lang.ChanSend(done, 1)
		})
		x++
		lang.ChanRecv(done)
	},
	"context.AfterFunc's function": func() {
		x := 0
		done := make(chan int, 1)
		ctx, cancel := scontext.WithCancel(context.Background())
		scontext.AfterFunc(ctx, func() {
			x++
			lang.ChanSend(done, 1)
		})
		cancel()
		x++
		lang.ChanRecv(done)
	},
	"Once.Do's function": func() {
		x := 0
		var once ssync.Once
		var wg ssync.WaitGroup
		wg.Add(1)
		sthread.Go(func() {
			defer wg.Done()
			once.Do(func() { x++ })
		})
		x++
		wg.Wait()
	},
	"Shuffle's swap": func() {
		p := []int{1, 2, 3}
		var wg ssync.WaitGroup
		for range 2 {
			wg.Add(1)
			sthread.Go(func() {
				defer wg.Done()
				srand.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
			})
		}
		wg.Wait()
	},
	"sync.Map's Range": func() {
		var m ssync.Map
		m.Store(1, 1)
		x := 0
		var wg ssync.WaitGroup
		for range 2 {
			wg.Add(1)
			sthread.Go(func() {
				defer wg.Done()
				m.Range(func(k, v any) bool { x++; return true })
			})
		}
		wg.Wait()
	},
	"a map range's body": func() {
		m := map[int]int{1: 1, 2: 2}
		x := 0
		var wg ssync.WaitGroup
		for range 2 {
			wg.Add(1)
			sthread.Go(func() {
				defer wg.Done()
				for next, k, _, ok := lang.MapRangeLoop(m); ok; k, _, ok = next() {
					x += k
				}
			})
		}
		wg.Wait()
	},
}

// racyError is an error whose Error method reads what a goroutine may be
// writing.
type racyError struct{ n int }

func (e *racyError) Error() string { return "error " + strconv.Itoa(e.n) }

// racyCrashing are programs that crash with a race of their own in what
// Go runs to print the panic (the Error method of its value).
var racyCrashing = map[string]func(){
	"the Error method of a panic's value": func() {
		e := &racyError{}
		sthread.Go(func() { e.n++ })
		// (A sleep orders nothing: the goroutine may write before the
		// panic reads, and the search runs that order. The panic ends
		// the execution: without it, the order where the panic comes
		// first is the only one.)
		stime.Sleep(time.Millisecond)
		panic(e)
	},
}

// The race detector must not see stdbg's own state: with the checked
// goroutines hiding their hand-overs from it (as they do under stdbg find)
// and the suppressions stdbg passes every target it starts, every schedule
// of correct programs that use every part of the runtime makes no race
// report at all (the channel buffers that wrap around and the generator of
// map orders made some, which failed the tests under way). The programs
// run in a process of their own, started as stdbg starts a target.
func TestOwnStateInvisible(t *testing.T) {
	if os.Getenv(invisibleEnv) != "" {
		exploreInvisibly(t)
		return
	}
	if testing.Short() {
		t.Skip("explores programs in a process of their own, built with the race detector")
	}
	out, err := invisibleChild(t, "TestOwnStateInvisible").CombinedOutput()
	if err != nil || strings.Contains(string(out), "DATA RACE") || !strings.Contains(string(out), "--- PASS: TestOwnStateInvisible") {
		t.Fatalf("%v\n%s", err, out)
	}
}

// TestProgramRacesVisible: stdbg's suppressions keep no race of the
// program out of the race detector's reports, even one whose accesses are
// made in functions that stdbg's runtime calls (a timer's, the goroutines
// it starts, a panic value's Error method): each racy program's race is
// found. The programs run in a process of their own, started as stdbg
// starts a target, which package testing fails for the races.
func TestProgramRacesVisible(t *testing.T) {
	if os.Getenv(invisibleEnv) != "" {
		exploreRacy(t)
		return
	}
	if testing.Short() {
		t.Skip("explores programs in a process of their own, built with the race detector")
	}
	out, _ := invisibleChild(t, "TestProgramRacesVisible").CombinedOutput()
	for name := range racy {
		if !strings.Contains(string(out), "race found: "+name+"\n") {
			t.Errorf("%s: its race is not reported", name)
		}
	}
	for name := range racyCrashing {
		if !strings.Contains(string(out), "race found: "+name+"\n") {
			t.Errorf("%s: its race is not reported", name)
		}
	}
	if t.Failed() {
		t.Logf("%s", out)
	}
}

// invisibleChild is the command that runs test in a process of its own,
// built with the race detector, started as stdbg starts a target.
func invisibleChild(t *testing.T, test string) *exec.Cmd {
	var cmd *exec.Cmd
	if raceBuild {
		cmd = exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v")
	} else {
		cmd = exec.Command("go", "test", "-race", "-count=1", "-v", "-run=^"+test+"$", ".")
	}
	cmd.Env = append(rtnames.WithRaceLog(os.Environ()), invisibleEnv+"=1", "STDBG_CACHE="+t.TempDir())
	return cmd
}

// exploreRacy explores every racy program, with the checked goroutines
// hiding their hand-overs, and says which races were found.
func exploreRacy(t *testing.T) {
	if !raceBuild {
		t.Fatal("not built with the race detector")
	}
	rt.HideRaces()
	for name, f := range racy {
		before := raceErrors()
		res, err := sthread.Explore(f, sthread.MaxExecutions(3000))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(res.Bugs) == 1 && res.Bugs[0].Kind == search.DataRace && raceErrors() > before {
			t.Logf("race found: %s\n", name)
		} else {
			t.Logf("race missed: %s: %v", name, res.Bugs)
		}
	}
	for name, f := range racyCrashing {
		before := raceErrors()
		if _, err := sthread.Explore(f, sthread.All(), sthread.MaxExecutions(3000)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if raceErrors() > before {
			t.Logf("race found: %s\n", name)
		} else {
			t.Logf("race missed: %s", name)
		}
	}
}

// exploreInvisibly explores every correct program, with the checked
// goroutines hiding their hand-overs, and fails if the race detector
// reported anything.
func exploreInvisibly(t *testing.T) {
	if !raceBuild {
		t.Fatal("not built with the race detector")
	}
	rt.HideRaces()
	before := raceErrors()
	for name, f := range correct {
		res, err := sthread.Explore(f, sthread.All(), sthread.NoMinimise(), sthread.MaxExecutions(3000))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, b := range res.Bugs {
			t.Errorf("%s: %s", name, b)
		}
		if n := raceErrors() - before; n > 0 {
			t.Fatalf("%s: the race detector made %d reports (on standard error)", name, n)
		}
		t.Logf("%s: %d executions", name, res.Stats.Executions)
	}
	for name, f := range crashing {
		res, err := sthread.Explore(f, sthread.All(), sthread.MaxExecutions(200))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(res.Bugs) != 1 || res.Bugs[0].Kind != search.Crash {
			t.Errorf("%s: %v, want the crash", name, res.Bugs)
		}
		if n := raceErrors() - before; n > 0 {
			t.Fatalf("%s: the race detector made %d reports (on standard error)", name, n)
		}
	}
}
