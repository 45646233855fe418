package sthread_test

import (
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
	satomic "github.com/stdbg/stdbg/sthread/sync/atomic"
)

// everything calls every sthread operation once, so that the test can
// check where each is reported.
func everything() {
	var mu sthread.Mutex
	var rw sthread.RWMutex
	var wg sthread.WaitGroup
	var once sthread.Once
	var n satomic.Int64
	var b satomic.Bool
	c := sthread.NewCond(&mu)
	ch := sthread.MakeChan[int](2)
	x := 0
	mu.Lock()
	mu.TryLock()
	mu.Unlock()
	rw.RLock()
	rw.TryRLock()
	rw.RUnlock()
	rw.RUnlock()
	rw.Lock()
	rw.TryLock()
	rw.Unlock()
	wg.Add(1)
	wg.Go(func() {
		ch.Send(1)
		ch.Send(2)
		mu.Lock()
		c.Signal()
		c.Broadcast()
		mu.Unlock()
	})
	wg.Done()
	wg.Wait()
	once.Do(func() {})
	ch.Recv()
	ch.Recv2()
	ch.Len()
	sthread.Select(ch.RecvCase(nil, nil), ch.SendCase(3), sthread.Default())
	ch.Close()
	for range ch.All() {
	}
	n.Store(n.Load() + n.Add(1) + n.Swap(2))
	n.CompareAndSwap(2, 3)
	b.Store(!b.Load())
	sthread.Read(&x)
	sthread.Write(&x)
	sthread.Yield()
	sthread.Sleep(time.Millisecond)
	sthread.Choose(2)
	done := sthread.MakeChan[struct{}](0)
	waiting := sthread.MakeChan[struct{}](1)
	ready := false
	sthread.Go(func() {
		mu.Lock()
		waiting.Send(struct{}{})
		for !ready {
			c.Wait()
		}
		mu.Unlock()
		done.Close()
	})
	waiting.Recv()
	for !mu.TryLock() {
		sthread.Yield()
	}
	ready = true
	c.Signal()
	mu.Unlock()
	done.Recv()
}

// TestCallSites checks that every operation is reported at the user's call,
// not inside package sthread.
func TestCallSites(t *testing.T) {
	res, err := sthread.Explore(everything, sthread.MaxExecutions(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) != 0 {
		t.Fatalf("unexpected bug:\n%s", res.Bugs[0])
	}
	bug, err := sthread.RunSchedule("", func() {
		everything()
		sthread.Assert(false, "end")
	})
	if err != nil || bug == nil {
		t.Fatalf("RunSchedule: %v, %v", bug, err)
	}
	var calls []string
	for _, s := range bug.Report.Steps {
		if !strings.HasSuffix(s.Where.File, "runtime_test.go") {
			t.Errorf("step %d (%s) reported at %s:%d", s.N, s.Call, s.Where.File, s.Where.Line)
		}
		calls = append(calls, strings.TrimSpace(strings.TrimPrefix(s.Call, strings.Fields(s.Call)[0])))
	}
	seen := func(api string) bool {
		for _, c := range calls {
			if strings.HasPrefix(c, api+"(") || strings.HasPrefix(c, api+" ") || c == api {
				return true
			}
		}
		return false
	}
	for _, want := range []string{"Mutex.Lock", "Mutex.TryLock", "Mutex.Unlock", "RWMutex.RLock", "RWMutex.TryRLock",
		"RWMutex.RUnlock", "RWMutex.Lock", "RWMutex.TryLock", "RWMutex.Unlock", "WaitGroup.Add", "WaitGroup.Done",
		"WaitGroup.Wait", "go", "Once.Do", "Chan.Send", "Chan.Recv", "Chan.Recv2", "Chan.Len", "Select", "Chan.Close",
		"range Chan.All", "atomic.Load", "atomic.Store", "atomic.Add", "atomic.Swap", "atomic.CompareAndSwap",
		"sthread.Read", "sthread.Write", "sthread.Yield", "time.Sleep", "sthread.Choose", "Cond.Wait",
		"Cond.Signal", "Cond.Broadcast"} {
		if !seen(want) {
			t.Errorf("no step shows %s", want)
		}
	}
	if t.Failed() {
		t.Log(bug)
	}
}

// TestNoGoroutineLeft runs thousands of executions, most of which end with
// blocked goroutines that must be unwound, and checks that the process has
// no more goroutines afterwards than before, and that the deferred calls of
// the unwound goroutines ran.
func TestNoGoroutineLeft(t *testing.T) {
	base := baseline()
	var started, deferred atomic.Int64
	prog := func() {
		ch := sthread.MakeChan[int](0)
		var mu sthread.Mutex
		for range 3 {
			sthread.Go(func() {
				started.Add(1)
				defer deferred.Add(1)
				mu.Lock()
				defer mu.Unlock()
				if sthread.Choose(2) == 0 {
					ch.Send(1) // nobody receives: blocked at the end
				}
			})
		}
		sthread.Yield()
	}
	total := int64(0)
	for total < 5000 {
		res, err := sthread.Explore(prog, sthread.All(), sthread.MaxExecutions(2500), sthread.NoMinimise())
		if err != nil {
			t.Fatal(err)
		}
		total += res.Stats.Executions
	}
	if s, d := started.Load(), deferred.Load(); s != d || s == 0 {
		t.Errorf("%d goroutines started, %d deferred calls ran", s, d)
	}
	waitGoroutines(t, base)
}

// baseline returns the number of goroutines once those of earlier tests
// (workers retired at the end of a Check) have ended.
func baseline() int {
	n := runtime.NumGoroutine()
	for range 50 {
		time.Sleep(2 * time.Millisecond)
		n = min(n, runtime.NumGoroutine())
	}
	return n
}

// waitGoroutines waits until the process has at most n goroutines.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, want at most %d:\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWaitOutsideTheModel: a goroutine that, between two of its
// scheduling points, waits on a real channel (code stdbg does not
// instrument) for what only a thread the scheduler holds would do is not a
// transition timeout: the check cannot judge the program, and says where
// the goroutine waits.
func TestWaitOutsideTheModel(t *testing.T) {
	base := baseline()
	wake := make(chan struct{}) // a real channel, out of the model's sight
	_, err := sthread.Explore(func() {
		var mu sthread.Mutex
		turns := 0
		sthread.Go(func() {
			mu.Lock()
			<-wake // only the test closes it, once the check is over
			turns++
			mu.Unlock()
		})
		mu.Lock()
		turns++
		mu.Unlock()
	}, sthread.Timeout(200*time.Millisecond))
	close(wake)
	if !errors.Is(err, search.ErrCannotJudge) {
		t.Fatalf("err %v, want one wrapping search.ErrCannotJudge", err)
	}
	for _, want := range []string{"thread 2 waited ", "outside the model (chan receive in sthread_test.TestWaitOutsideTheModel.func1.1 (runtime_test.go:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	waitGoroutines(t, base)
}

// TestBudgetCutsAStep: a step that is still running when the budget
// ends is cut there, without a verdict; not run on to the transition
// timeout and reported as one.
func TestBudgetCutsAStep(t *testing.T) {
	base := baseline()
	var release atomic.Bool
	res, err := sthread.Explore(func() {
		var mu sthread.Mutex
		turns := 0
		sthread.Go(func() {
			mu.Lock()
			for !release.Load() { // a step that does not end by itself
				time.Sleep(time.Millisecond)
			}
			turns++
			mu.Unlock()
		})
		mu.Lock()
		turns++
		mu.Unlock()
	}, sthread.Timeout(2*time.Second), sthread.Budget(300*time.Millisecond))
	release.Store(true)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) != 0 || res.Complete {
		t.Errorf("bugs %v, complete %v: want an incomplete search without a bug", res.Bugs, res.Complete)
	}
	waitGoroutines(t, base)
}

func TestTransitionTimeout(t *testing.T) {
	base := baseline()
	var release atomic.Bool
	var unwound atomic.Bool
	res, err := sthread.Explore(func() {
		var mu sthread.Mutex
		sthread.Go(func() {
			defer func() {
				if !release.Load() {
					return
				}
				unwound.Store(true)
			}()
			for !release.Load() { // spins without a scheduling point
				time.Sleep(time.Millisecond)
			}
			mu.Lock() // too late: the goroutine is stale and unwinds here
			t.Error("a stale goroutine went on")
		})
		mu.Lock()
	}, sthread.Timeout(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != search.Timeout {
		t.Fatalf("bugs %v, want a timeout", res.Bugs)
	}
	text := res.Bugs[0].String()
	for _, want := range []string{"TRANSITION TIMEOUT", "thread 2 did not reach its next scheduling point within 200ms", "thread 2 is stuck"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	release.Store(true)
	for deadline := time.Now().Add(5 * time.Second); !unwound.Load(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the stale goroutine did not unwind")
		}
	}
	waitGoroutines(t, base)
	// The process is still fit for checking.
	res, err = sthread.Explore(deadlyEmbrace)
	if err != nil || len(res.Bugs) != 1 || res.Bugs[0].Kind != search.Deadlock {
		t.Errorf("after a timeout: %v, %v", res.Bugs, err)
	}
}

func TestForeignGoroutine(t *testing.T) {
	res, err := sthread.Explore(func() {
		var mu sthread.Mutex
		done := make(chan struct{})
		mu.Lock()
		go func() { // BUG: not sthread.Go
			mu.Unlock()
			close(done)
		}()
		<-done
	}, sthread.Timeout(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) != 1 || !strings.Contains(res.Bugs[0].Message, "not started with sthread.Go") {
		t.Errorf("bugs = %v", res.Bugs)
	}
	// The foreign goroutine and the thread waiting for it are left
	// blocked for good.
}

// runtime.Goexit ends a goroutine as a return does, running its deferred
// calls, as Go allows anywhere (a library's worker may call it): no bug of
// its own. In the checked function it is a failure, as go test reports
// a test that calls it.
func TestGoexit(t *testing.T) {
	tests := []struct {
		name string
		f    func()
		kind search.Kind // search.Exited: no bug
		msg  string
	}{
		{"a goroutine ends itself", func() {
			sthread.Go(func() { runtime.Goexit() })
		}, search.Exited, ""},
		{"its deferred calls run", func() {
			var wg sthread.WaitGroup
			wg.Add(1)
			sthread.Go(func() {
				defer wg.Done()
				runtime.Goexit()
			})
			wg.Wait()
		}, search.Exited, ""},
		{"what comes after it does not", func() {
			ch := sthread.MakeChan[int](0)
			sthread.Go(func() {
				runtime.Goexit()
				ch.Send(1)
			})
			ch.Recv()
		}, search.Deadlock, ""},
		{"the checked function", func() {
			sthread.Go(func() {})
			runtime.Goexit()
		}, search.AssertionFailure, "runtime.Goexit in the checked function"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := sthread.Explore(tt.f, sthread.All())
			if err != nil {
				t.Fatal(err)
			}
			if tt.kind == search.Exited {
				if len(res.Bugs) != 0 || !res.Complete {
					t.Fatalf("bugs = %v, complete %v: want none, complete", res.Bugs, res.Complete)
				}
				return
			}
			if len(res.Bugs) != 1 || res.Bugs[0].Kind != tt.kind || !strings.Contains(res.Bugs[0].Message, tt.msg) {
				t.Fatalf("bugs = %v: want one %v (%q)", res.Bugs, tt.kind, tt.msg)
			}
			// Minimisation runs more executions with the same goroutine
			// records: a goroutine that Goexit ended is not waited for
			// (it was, until the transition timeout, and minimisation
			// failed).
			if m := res.Bugs[0].Report.Minimised; m == nil || !m.Proven {
				t.Errorf("not minimised: %+v", m)
			}
		})
	}
}

func TestGoexitThenMoreExecutions(t *testing.T) {
	// The first execution ends a goroutine with Goexit; the next ones
	// reuse its goroutine's record, and run.
	exits, past := 0, 0
	res, err := sthread.Explore(func() {
		var wg sthread.WaitGroup
		wg.Add(1)
		sthread.Go(func() {
			defer wg.Done()
			if sthread.Choose(3) == 0 {
				exits++
				runtime.Goexit()
			}
			past++
		})
		wg.Wait()
	}, sthread.All(), sthread.NoMinimise(), sthread.NoReduction())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) != 0 || !res.Complete || exits == 0 || past != 2*exits {
		t.Errorf("bugs = %v, complete %v, %d Goexits, %d went past: want none, complete, twice as many past", res.Bugs, res.Complete, exits, past)
	}
}

func TestPanicAfterUnwindingIsIgnored(t *testing.T) {
	// A goroutine whose deferred call panics while it is unwound at the
	// end of an execution does not disturb the check.
	res, err := sthread.Explore(func() {
		ch := sthread.MakeChan[int](0)
		sthread.Go(func() {
			defer func() { panic("in a deferred call") }()
			ch.Recv()
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != search.Leak {
		t.Errorf("bugs = %v", res.Bugs)
	}
}

// globalMu is used by checks: a global starts afresh in each execution and
// is named in reports.
var globalMu sthread.Mutex

func TestGlobalObjects(t *testing.T) {
	globalMu.Lock() // outside Check: the real mutex
	defer globalMu.Unlock()
	res, err := sthread.Explore(func() {
		globalMu.Lock() // under Check: unlocked in every execution
		globalMu.Lock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) != 1 || !strings.Contains(res.Bugs[0].String(), "Mutex.Lock(globalMu)") {
		t.Errorf("bugs = %v", res.Bugs)
	}
}
