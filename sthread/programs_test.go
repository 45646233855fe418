package sthread_test

import (
	"time"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/lang"
	"github.com/stdbg/stdbg/sthread/sync/atomic"
	stime "github.com/stdbg/stdbg/sthread/time"
)

// program is a checked function with what Explore must find in it.
type program struct {
	name string
	f    func()
	opts []sthread.Option
	// kind is the bug expected, search.Exited for none.
	kind search.Kind
	// want are texts the report must contain.
	want []string
	// brute, if -1: running every schedule takes too long for a test.
	brute int
}

func deadlyEmbrace() {
	var a, b sthread.Mutex
	n := 0
	sthread.Go(func() {
		b.Lock()
		a.Lock()
		n++
		a.Unlock()
		b.Unlock()
	})
	a.Lock()
	b.Lock()
	n++
	b.Unlock()
	a.Unlock()
}

var programs = []program{
	{name: "deadly embrace", f: deadlyEmbrace, kind: search.Deadlock,
		want: []string{"waits in Mutex.Lock for b (held by thread 2)", "a.Lock()"}},
	{name: "mutex ok", kind: search.Exited, f: func() {
		var mu sthread.Mutex
		n := 0
		var wg sthread.WaitGroup
		for range 2 {
			wg.Add(1)
			sthread.Go(func() {
				defer wg.Done()
				mu.Lock()
				n++
				mu.Unlock()
			})
		}
		wg.Wait()
		sthread.Assert(n == 2, "lost increment")
	}},
	{name: "unlock of unlocked mutex", kind: search.Misuse, want: []string{"unlock of unlocked mutex mu"}, f: func() {
		var mu sthread.Mutex
		mu.Unlock()
	}},
	{name: "unlock by another goroutine", kind: search.Exited, f: func() {
		var mu sthread.Mutex
		done := sthread.MakeChan[struct{}](0)
		mu.Lock()
		sthread.Go(func() { mu.Unlock(); done.Send(struct{}{}) })
		done.Recv()
		mu.Lock()
	}},
	{name: "try lock", kind: search.Exited, f: func() {
		var mu sthread.Mutex
		got := sthread.MakeChan[bool](1)
		sthread.Go(func() { got.Send(mu.TryLock()) })
		a := mu.TryLock()
		b := got.Recv()
		sthread.Assert(!(a && b), "got the lock twice")
	}},
	{name: "lost update", kind: search.AssertionFailure, want: []string{"assertion failed: lost update"}, f: func() {
		x := 0
		var wg sthread.WaitGroup
		for range 2 {
			wg.Go(func() {
				sthread.Read(&x)
				v := x
				sthread.Write(&x)
				x = v + 1
			})
		}
		wg.Wait()
		sthread.Assert(x == 2, "lost update")
	}},
	// The timer of time.After may fire before a goroutine that has not
	// started yet sends its result: the sender then blocks for ever. The
	// first schedule runs the sender first and ends with the timer still
	// pending, a goroutine that never ran: its firing races with the
	// test's return and must be tried before it.
	{name: "timeout wins over a result computed at once", kind: search.Leak,
		want: []string{"blocked forever"}, f: func() {
			results := make(chan int)
			sthread.Go(func() { lang.ChanSend(results, 42) })
			r := lang.RecvCaseOf(results)
			lang.SelectOf(false, r, lang.RecvCaseOf(stime.After(10*time.Millisecond)))
		}},
	// An AfterFunc callback deletes an entry under the lock that the test
	// reads it under before it stops the timer: the callback may run
	// first. Stop makes the timer's firing impossible; before the Stop it
	// races with everything.
	{name: "AfterFunc fires before Stop", kind: search.AssertionFailure,
		want: []string{"entry expired early"}, f: func() {
			var mu sthread.Mutex
			m := map[string]int{"k": 1}
			tm := stime.AfterFunc(5*time.Millisecond, func() {
				mu.Lock()
				delete(m, "k")
				mu.Unlock()
			})
			mu.Lock()
			_, ok := m["k"]
			mu.Unlock()
			tm.Stop()
			sthread.Assert(ok, "entry expired early")
		}},
	// A cache whose janitor deletes expired entries on every tick of a
	// ticker: the test, woken from a sleep, stores an entry that expires
	// 70ms later, sleeps 55ms and finds it. A goroutine that time woke
	// runs at its time: the janitor's ticks cannot move the clock past the
	// entry's time before the test, woken again, looks (however slow
	// other goroutines may be).
	{name: "a sleeper wakes at its time", kind: search.Exited, f: func() {
		var mu sthread.Mutex
		expires := map[string]time.Time{}
		tick := stime.NewTicker(20 * time.Millisecond)
		stop := make(chan struct{})
		done := make(chan struct{})
		sthread.Go(func() {
			defer lang.ChanClose(done)
			for {
				if lang.SelectOf(false, lang.RecvCaseOf(tick.C), lang.RecvCaseOf(stop)) == 1 {
					return
				}
				mu.Lock()
				for k, at := range expires {
					if !stime.Now().Before(at) {
						delete(expires, k)
					}
				}
				mu.Unlock()
			}
		})
		sthread.Sleep(5 * time.Millisecond)
		mu.Lock()
		expires["d"] = stime.Now().Add(70 * time.Millisecond)
		mu.Unlock()
		lang.ChanRecv(stime.After(25 * time.Millisecond))
		sthread.Sleep(30 * time.Millisecond)
		mu.Lock()
		_, ok := expires["d"]
		mu.Unlock()
		sthread.Assert(ok, "the entry expired before its time")
		tick.Stop()
		lang.ChanClose(stop)
		lang.ChanRecv(done)
	}, brute: -1},
	// A janitor that waits on its ticker when the test ends is not leaked:
	// its ticker will fire (Go's goroutine leak profile does not report
	// it either). One that waits on a channel nobody can send on is.
	{name: "a janitor waiting on its ticker is not leaked", kind: search.Exited, f: func() {
		tick := stime.NewTicker(time.Millisecond)
		stop := make(chan struct{})
		sthread.Go(func() {
			for {
				if lang.SelectOf(false, lang.RecvCaseOf(tick.C), lang.RecvCaseOf(stop)) == 1 {
					return
				}
			}
		})
		// (The ticker may tick for ever before the test returns: a
		// depth bound cuts those schedules.)
	}, opts: []sthread.Option{sthread.MaxDepth(60)}, brute: -1},
	{name: "a janitor waiting on nothing that can come is leaked", kind: search.Leak,
		want: []string{"blocked forever"}, f: func() {
			stop := make(chan struct{})
			sthread.Go(func() { lang.ChanRecv(stop) })
		}},
	// The test's own watchdog: a timeout that fires while the work could
	// still run says the machine is slow, not that the program is wrong.
	{name: "a test's timeout while its work can still run", kind: search.Exited, f: func() {
		done := make(chan struct{})
		sthread.Go(func() { lang.ChanClose(done) })
		took := lang.SelectOf(false, lang.RecvCaseOf(done), lang.RecvCaseOf(stime.After(time.Second)))
		sthread.Assert(took == 0, "the work took too long")
	}},
	// ... but when the work can no longer run, the timeout is right.
	{name: "a test's timeout when its work is stuck", kind: search.AssertionFailure,
		want: []string{"the work is stuck"}, f: func() {
			done := make(chan struct{})
			never := make(chan struct{})
			sthread.Go(func() { lang.ChanRecv(never); lang.ChanClose(done) })
			took := lang.SelectOf(false, lang.RecvCaseOf(done), lang.RecvCaseOf(stime.After(time.Second)))
			sthread.Assert(took == 0, "the work is stuck")
			lang.ChanClose(never)
		}},
	{name: "recursive read lock behind a writer", kind: search.Deadlock,
		want: []string{"waits in RWMutex.RLock for rw (thread 2 is waiting to write-lock it)"}, f: func() {
			var rw sthread.RWMutex
			n := 0
			sthread.Go(func() { rw.Lock(); n++; rw.Unlock() })
			rw.RLock()
			rw.RLock()
			_ = n
			rw.RUnlock()
			rw.RUnlock()
		}},
	{name: "rwmutex readers and writers", kind: search.Exited, f: func() {
		var rw sthread.RWMutex
		var wg sthread.WaitGroup
		v := 0
		wg.Go(func() { rw.Lock(); v++; rw.Unlock() })
		rw.RLock()
		_ = v
		rw.RUnlock()
		wg.Wait()
	}},
	{name: "rwmutex try locks", kind: search.Exited, f: func() {
		var rw sthread.RWMutex
		done := sthread.MakeChan[bool](1)
		sthread.Go(func() {
			ok := rw.TryLock()
			if ok {
				rw.Unlock()
			}
			done.Send(ok)
		})
		if rw.TryRLock() {
			rw.RUnlock()
		}
		done.Recv()
	}},
	{name: "RUnlock of unlocked", kind: search.Misuse, want: []string{"RUnlock of RWMutex rw, which is not read-locked"}, f: func() {
		var rw sthread.RWMutex
		rw.RUnlock()
	}},
	// Go panics, with a value a deferred recover may take: an
	// unrecovered one is a crash, with Go's message.
	{name: "negative wait group", kind: search.Crash, want: []string{"panic: sync: negative WaitGroup counter"}, f: func() {
		var wg sthread.WaitGroup
		wg.Done()
	}},
	{name: "negative wait group recovered", kind: search.Deadlock, want: []string{"WaitGroup"}, f: func() {
		var wg sthread.WaitGroup
		func() {
			defer func() { sthread.Assert(recover() != nil, "no panic") }()
			wg.Done()
		}()
		// The counter stays at -1, as Go leaves it: Wait waits for zero.
		wg.Wait()
	}},
	{name: "wait group add racing with wait", kind: search.AssertionFailure, want: []string{"Wait returned before the work was done"}, f: func() {
		var wg sthread.WaitGroup
		done := false
		sthread.Go(func() {
			wg.Add(1)
			sthread.Write(&done)
			done = true
			wg.Done()
		})
		wg.Wait()
		sthread.Read(&done)
		sthread.Assert(done, "Wait returned before the work was done")
	}},
	{name: "cond", kind: search.Exited, f: func() {
		var mu sthread.Mutex
		c := sthread.NewCond(&mu)
		ready := false
		sthread.Go(func() {
			mu.Lock()
			ready = true
			c.Signal()
			mu.Unlock()
		})
		mu.Lock()
		for !ready {
			c.Wait()
		}
		mu.Unlock()
	}},
	{name: "cond wait without its condition", kind: search.Deadlock,
		want: []string{"waits in Cond.Wait for c (not signalled)"}, f: func() {
			var mu sthread.Mutex
			c := sthread.NewCond(&mu)
			done := sthread.MakeChan[struct{}](0)
			sthread.Go(func() {
				mu.Lock()
				c.Wait() // BUG: waits without checking the condition
				mu.Unlock()
				done.Send(struct{}{})
			})
			mu.Lock()
			c.Signal()
			mu.Unlock()
			done.Recv()
		}},
	{name: "cond on an RLocker", kind: search.Exited, f: func() {
		var rw sthread.RWMutex
		c := sthread.NewCond(rw.RLocker())
		ready := atomic.Bool{}
		sthread.Go(func() {
			rw.Lock()
			ready.Store(true)
			rw.Unlock()
			c.Broadcast()
		})
		rw.RLock()
		for !ready.Load() {
			c.Wait()
		}
		rw.RUnlock()
	}},
	{name: "once", kind: search.Exited, f: func() {
		var once sthread.Once
		n := 0
		var wg sthread.WaitGroup
		for range 2 {
			wg.Go(func() { once.Do(func() { n++ }) })
		}
		once.Do(func() { n++ })
		wg.Wait()
		sthread.Assert(n == 1, "ran twice")
	}},
	{name: "recursive once", kind: search.Misuse, want: []string{"recursive once"}, f: func() {
		var once sthread.Once
		once.Do(func() { once.Do(func() {}) })
	}},
	{name: "double close", kind: search.Crash, want: []string{"panic: close of closed channel ch"}, f: func() {
		ch := sthread.MakeChan[int](0)
		ch.Close()
		ch.Close()
	}},
	{name: "close of nil channel", kind: search.Crash, want: []string{"panic: close of nil channel"}, f: func() {
		var ch sthread.Chan[int]
		ch.Close()
	}},
	{name: "send on closed channel", kind: search.Crash, want: []string{"panic: send on closed channel ch"}, f: func() {
		ch := sthread.MakeChan[int](1)
		ch.Close()
		ch.Send(1)
	}},
	// A recovered panic is no bug: the program goes on, and its later bug
	// is found.
	{name: "send on closed channel recovered", kind: search.Deadlock, want: []string{"ch"}, f: func() {
		ch := sthread.MakeChan[int](1)
		ch.Close()
		func() {
			defer func() { sthread.Assert(recover() != nil, "no panic") }()
			ch.Send(1)
		}()
		func() {
			defer func() { sthread.Assert(recover() != nil, "no panic") }()
			ch.Close()
		}()
		sthread.MakeChan[int](0).Recv()
	}},
	{name: "close while a sender is blocked", kind: search.Crash, want: []string{"panic: send on closed channel ch"}, f: func() {
		ch := sthread.MakeChan[int](0)
		sthread.Go(func() { ch.Send(1) })
		sthread.Yield()
		ch.Close()
	}, opts: []sthread.Option{sthread.All()}},
	// DPOR tries both orders of a send and the close that makes it
	// panic: the panic is recovered, and only the order close first
	// fails the assertion.
	{name: "send racing with a close, recovered", kind: search.AssertionFailure, want: []string{"the send panicked"}, f: func() {
		ch := sthread.MakeChan[int](1)
		var wg sthread.WaitGroup
		panicked := false
		wg.Go(func() {
			defer func() { panicked = recover() != nil }()
			ch.Send(1)
		})
		wg.Go(func() { ch.Close() })
		wg.Wait()
		sthread.Assert(!panicked, "the send panicked")
	}},
	{name: "nil channel blocks", kind: search.Deadlock, want: []string{"on a nil channel"}, f: func() {
		var ch sthread.Chan[int]
		ch.Recv()
	}},
	{name: "pipeline values", kind: search.Exited, f: func() {
		in := sthread.MakeChan[int](0)
		out := sthread.MakeChan[int](1)
		sthread.Go(func() {
			for v := range in.All() {
				out.Send(v * v)
			}
			out.Close()
		})
		in.Send(3)
		in.Close()
		sum := 0
		for v := range out.All() {
			sum += v
		}
		sthread.Assert(sum == 9, "wrong sum")
		_, ok := out.Recv2()
		sthread.Assert(!ok, "closed channel gave a value")
		sthread.Assert(out.Len() == 0 && out.Cap() == 1, "len or cap")
	}},
	{name: "buffered values in order", kind: search.Exited, f: func() {
		ch := sthread.MakeChan[string](2)
		sthread.Go(func() {
			for _, s := range []string{"a", "b", "c", "d"} {
				ch.Send(s)
			}
		})
		got := ""
		for range 4 {
			got += ch.Recv()
		}
		sthread.Assert(got == "abcd", "got "+got)
	}},
	{name: "goroutine leak", kind: search.Leak, want: []string{"waits in Chan.Send for results (no receiver)"}, f: func() {
		results := sthread.MakeChan[int](0)
		timeout := sthread.MakeChan[struct{}](0)
		sthread.Go(func() { results.Send(42) })
		sthread.Go(func() { timeout.Close() })
		var v int
		switch sthread.Select(results.RecvCase(&v, nil), timeout.RecvCase(nil, nil)) {
		case 0:
			_ = v
		case 1:
		}
	}},
	{name: "select both orders", kind: search.AssertionFailure, want: []string{"b first"}, f: func() {
		a := sthread.MakeChan[int](1)
		b := sthread.MakeChan[int](1)
		a.Send(1)
		b.Send(2)
		var v int
		i := sthread.Select(a.RecvCase(&v, nil), b.RecvCase(&v, nil))
		sthread.Assert(i == 0 && v == 1, "b first")
	}},
	{name: "select default", kind: search.AssertionFailure, want: []string{"default taken"}, f: func() {
		ch := sthread.MakeChan[int](0)
		sthread.Go(func() { ch.Send(1) })
		var v int
		if sthread.Select(ch.RecvCase(&v, nil), sthread.Default()) == 1 {
			sthread.Assert(false, "default taken")
		}
	}},
	{name: "select send to a parked receiver", kind: search.Exited, f: func() {
		ch := sthread.MakeChan[int](0)
		quit := sthread.MakeChan[int](0)
		got := sthread.MakeChan[int](1)
		sthread.Go(func() { got.Send(ch.Recv()) })
		switch sthread.Select(ch.SendCase(7), quit.SendCase(0)) {
		case 0:
			sthread.Assert(got.Recv() == 7, "wrong value")
		default:
			sthread.Assert(false, "quit")
		}
	}},
	{name: "select between two selects", kind: search.Exited, f: func() {
		ch := sthread.MakeChan[int](0)
		other := sthread.MakeChan[int](0)
		res := sthread.MakeChan[int](1)
		sthread.Go(func() {
			var v int
			sthread.Select(ch.RecvCase(&v, nil), other.RecvCase(nil, nil))
			res.Send(v)
		})
		sthread.Select(ch.SendCase(5), other.SendCase(9))
		v := res.Recv()
		sthread.Assert(v == 5 || v == 0, "wrong value")
	}},
	{name: "select woken by close", kind: search.Exited, f: func() {
		done := sthread.MakeChan[struct{}](0)
		never := sthread.MakeChan[int](0)
		res := sthread.MakeChan[bool](1)
		sthread.Go(func() {
			ok := true
			sthread.Select(done.RecvCase(nil, &ok), never.RecvCase(nil, nil))
			res.Send(ok)
		})
		done.Close()
		sthread.Assert(!res.Recv(), "value from a closed channel")
	}},
	{name: "empty select", kind: search.Deadlock, want: []string{"waits in Select without cases"}, f: func() {
		sthread.Select()
	}},
	{name: "panic", kind: search.Crash, want: []string{"panic: boom", "checkedPanic"}, f: func() {
		sthread.Go(checkedPanic)
	}},
	{name: "runtime panic", kind: search.Crash, want: []string{"index out of range"}, f: func() {
		var s []int
		i := 3
		sthread.Go(func() { _ = s[i] })
	}},
	{name: "choose", kind: search.AssertionFailure, want: []string{"picked 2"}, f: func() {
		sthread.Assert(sthread.Choose(3) != 2, "picked 2")
	}},
	{name: "atomics", kind: search.AssertionFailure, want: []string{"lost update"}, f: func() {
		var n atomic.Int64
		var wg sthread.WaitGroup
		for range 2 {
			wg.Go(func() {
				v := n.Load()
				n.Store(v + 1)
			})
		}
		wg.Wait()
		sthread.Assert(n.Load() == 2, "lost update")
	}},
	{name: "atomics ok", kind: search.Exited, f: func() {
		var n atomic.Int64
		var m atomic.Int32
		var p atomic.Pointer[int]
		done := sthread.MakeChan[struct{}](0)
		sthread.Go(func() {
			for {
				old := n.Load()
				if n.CompareAndSwap(old, old+10) {
					break
				}
			}
			x := 1
			p.CompareAndSwap(nil, &x)
			done.Close()
		})
		n.Add(1)
		m.Swap(m.Add(2))
		m.CompareAndSwap(2, 3)
		done.Recv()
		n.Swap(n.Load())
		p.Store(p.Swap(p.Load()))
		sthread.Assert(n.Load() == 11 && m.Load() == 3 && p.Load() != nil, "atomics")
	}},
	{name: "yield and sleep", kind: search.Exited, f: func() {
		var flag atomic.Bool
		sthread.Go(func() { sthread.Sleep(1e9); flag.Store(true) })
		for !flag.Load() {
			sthread.Yield()
		}
	}, opts: []sthread.Option{sthread.MaxDepth(30)}},
}

// checkedPanic panics in a named function, for the stack.
func checkedPanic() { panic("boom") }
