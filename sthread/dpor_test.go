package sthread_test

import (
	"context"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/engine/search/searchtest"
	"github.com/stdbg/stdbg/examples/go/dpor"
	"github.com/stdbg/stdbg/sthread"
)

func countTraces(t *testing.T, f func(), st search.Strategy) (*searchtest.TraceCounter, *search.Result) {
	t.Helper()
	ex, done := sthread.Executor(f)
	defer done()
	c := searchtest.NewTraceCounter(st)
	res, err := search.Explore(context.Background(), ex, c, search.Options{All: true, MaxExecutions: 300000})
	if err != nil {
		t.Fatal(err)
	}
	return c, res
}

// DPOR runs exactly one execution per Mazurkiewicz trace of the Go
// programs, counted by hand as for their C twins: the order of two critical
// sections, a reader before or after the writer. The rendezvous of an
// unbuffered send and its receive is one event, Dones that leave a
// WaitGroup above zero commute with each other and with the Wait, and the
// checked function's return does not race with the goroutines still
// running. Running every schedule finds at least as many trace keys (an
// Add and a Done that commute are keyed apart in the order Done first).
func TestDPOROneExecutionPerTraceGo(t *testing.T) {
	tests := []struct {
		name   string
		f      func()
		traces int // executions DPOR needs: the traces, but where noted
		slow   bool
		// noDFS: running every schedule takes over 300,000 executions,
		// so the traces are not counted that way.
		noDFS bool
	}{
		{"unbuffered send and receive", func() {
			ch := sthread.MakeChan[int](0)
			sthread.Go(func() { ch.Send(1) })
			ch.Recv()
		}, 1, false, false},
		{"two goroutines lock one mutex", func() {
			var mu sthread.Mutex
			var wg sthread.WaitGroup
			n := 0
			for range 2 {
				wg.Go(func() { mu.Lock(); n++; mu.Unlock() })
			}
			wg.Wait()
		}, 2, false, false},
		{"buffered channel, two senders", func() {
			ch := sthread.MakeChan[int](2)
			sthread.Go(func() { ch.Send(1) })
			sthread.Go(func() { ch.Send(2) })
			ch.Recv()
			ch.Recv()
		}, 4, false, false}, // 2 traces: a send and a receive at the buffer's ends are kept apart (see docs/go-dependency.md)
		{"two readers and a writer", func() {
			var rw sthread.RWMutex
			var wg sthread.WaitGroup
			x := 0
			for range 2 {
				wg.Go(func() { rw.RLock(); sthread.Read(&x); _ = x; rw.RUnlock() })
			}
			rw.Lock()
			sthread.Write(&x)
			x++
			rw.Unlock()
			wg.Wait()
		}, 4, false, true}, // each reader before or after the writer; the readers commute
		{"a Done before the next Add", func() {
			var wg sthread.WaitGroup
			wg.Go(func() {})
			wg.Go(func() {})
			wg.Wait()
		}, 1, false, false},
		{"readers-writers 1", dpor.ReadersWriters(1), 2, false, false},
		{"counter 2", dpor.Counter(2), 2, false, false},
		{"indexer 2", dpor.Indexer(2), 1, true, false},
		{"prodcons 1", dpor.ProdCons(1), 6, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.slow && testing.Short() {
				t.Skip("runs every schedule, over 20000")
			}
			red, res := countTraces(t, tt.f, search.NewDPOR())
			if red.Runs != tt.traces || res.Stats.Executions != int64(tt.traces) {
				t.Errorf("DPOR ran %d executions (%d complete), want one per trace: %d", res.Stats.Executions, red.Runs, tt.traces)
			}
			if tt.noDFS {
				return
			}
			all, none := countTraces(t, tt.f, search.NewDFS())
			if !none.Complete {
				t.Skipf("too many schedules: %d", none.Stats.Executions)
			}
			t.Logf("every schedule: %d executions, %d trace keys; DPOR: %d executions", none.Stats.Executions, len(all.Traces), red.Runs)
			if len(all.Traces) < tt.traces {
				t.Errorf("every schedule shows %d trace keys, fewer than the %d traces", len(all.Traces), tt.traces)
			}
		})
	}
}

// A depth bound that no execution reaches costs no execution: the
// programs of examples/go/dpor need as many under sthread.Explore's default
// bound as without one (LastZero(3) needed 13 for 12 traces).
func TestDPORDepthBoundUnreachedCostsNothing(t *testing.T) {
	for _, tt := range []struct {
		name string
		f    func()
	}{
		{"lastzero 3", dpor.LastZero(3)},
		{"readers-writers 2", dpor.ReadersWriters(2)},
		{"prodcons 1", dpor.ProdCons(1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			red, _ := countTraces(t, tt.f, search.NewDPOR())
			res, err := sthread.Explore(tt.f, sthread.All())
			if err != nil {
				t.Fatal(err)
			}
			if !res.Complete || res.DepthLimited || res.Stats.Executions != int64(red.Runs) {
				t.Errorf("under the default bound: %d executions (complete %v, cut %v); unbounded: %d",
					res.Stats.Executions, res.Complete, res.DepthLimited, red.Runs)
			}
		})
	}
}

// Each refinement of the Go dependency model keeps the bugs that need the
// reordering it could hide: DPOR finds every bug that running every
// schedule finds.
func TestDPORGoRefinementsKeepBugs(t *testing.T) {
	tests := []struct {
		name string
		f    func()
	}{
		{"Add inside the goroutine races with Wait", func() {
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
			sthread.Assert(done, "Wait returned before the work was added")
		}},
		{"Done before the Add makes the counter negative", func() {
			var wg sthread.WaitGroup
			sthread.Go(func() { wg.Done() })
			wg.Add(1)
			wg.Wait()
		}},
		{"which sender an unbuffered receive meets", func() {
			ch := sthread.MakeChan[int](0)
			sthread.Go(func() { ch.Send(1) })
			sthread.Go(func() { ch.Send(2) })
			sthread.Assert(ch.Recv() == 1, "received 2 first")
			ch.Recv()
		}},
		{"a full buffer: send before or after the receive", func() {
			ch := sthread.MakeChan[int](1)
			ch.Send(0)
			sthread.Go(func() { ch.Send(1) })
			ch.Recv()
			sthread.Assert(ch.Len() == 0, "a value came in right after the receive")
			ch.Recv()
		}},
		{"a goroutine fails after the checked function returned", func() {
			var mu sthread.Mutex
			n := 0
			sthread.Go(func() { mu.Lock(); n++; mu.Unlock(); mu.Unlock() })
		}},
		{"a select takes whichever case is ready first", func() {
			a, b := sthread.MakeChan[int](0), sthread.MakeChan[int](0)
			sthread.Go(func() { a.Send(1) })
			sthread.Go(func() { b.Send(2) })
			var v int
			sthread.Select(a.RecvCase(&v, nil), b.RecvCase(&v, nil))
			sthread.Assert(v == 1, "b won")
		}},
		{"a woken waiter relocks after another consumer took the item", func() {
			var mu sthread.Mutex
			c := sthread.NewCond(&mu)
			items := 0
			for range 2 {
				sthread.Go(func() {
					mu.Lock()
					if items == 0 { // the bug: if, not for
						c.Wait()
					}
					sthread.Assert(items > 0, "woken with nothing to take")
					items--
					mu.Unlock()
				})
			}
			for range 2 {
				mu.Lock()
				items++
				mu.Unlock()
				c.Signal()
			}
		}},
		{"a signal between a wake and the next wait is lost", func() {
			var mu sthread.Mutex
			c := sthread.NewCond(&mu)
			n := 0
			for range 2 {
				sthread.Go(func() {
					mu.Lock()
					n++
					mu.Unlock()
					c.Signal()
				})
			}
			mu.Lock()
			for range 2 { // the bug: counts signals instead of checking n
				c.Wait()
			}
			sthread.Assert(n == 2, "woken twice before both increments")
			mu.Unlock()
		}},
		{"a goroutine starts before its creator's yield", func() {
			started := false
			sthread.Go(func() { started = true }) // no operation: all in its start
			sthread.Yield()                       // the creator polls, as a Yield says
			sthread.Assert(!started, "the goroutine ran before the creator's check")
		}},
		{"two readers append in either order", func() {
			var rw sthread.RWMutex
			var order []int
			var wg sthread.WaitGroup
			for id := 1; id <= 2; id++ {
				wg.Go(func() {
					rw.RLock()
					sthread.Write(&order) // the bug: a write under a read lock
					order = append(order, id)
					rw.RUnlock()
				})
			}
			wg.Wait()
			sthread.Assert(order[0] == 1, "reader 2 came first")
		}},
		{"a writer announces itself between two read locks", func() {
			var rw sthread.RWMutex
			var wg sthread.WaitGroup
			x := 0
			wg.Go(func() {
				rw.RLock()
				rw.RLock() // the bug: a recursive read lock
				_ = x
				rw.RUnlock()
				rw.RUnlock()
			})
			wg.Go(func() { rw.Lock(); x++; rw.Unlock() })
			wg.Wait()
		}},
		{"an RUnlock releases another reader's lock", func() {
			var rw sthread.RWMutex
			var wg sthread.WaitGroup
			wg.Go(func() { rw.RLock() })
			wg.Go(func() { rw.RUnlock() }) // the bug: it holds no read lock
			wg.Wait()
			rw.Lock()
			defer rw.Unlock()
		}},
		{"a Wait returns between a Done and a later Add", func() {
			var wg sthread.WaitGroup
			added := false
			wg.Add(1)
			sthread.Go(func() { wg.Done() })
			sthread.Go(func() {
				wg.Add(1) // the bug: the Add belongs before the Go
				sthread.Write(&added)
				added = true
				wg.Done()
			})
			wg.Wait()
			sthread.Read(&added)
			sthread.Assert(added, "Wait returned before the second goroutine added itself")
		}},
		{"a condition on a Locker that is not a Mutex", func() {
			var rw sthread.RWMutex
			c := sthread.NewCond(rw.RLocker())
			ready := false
			sthread.Go(func() {
				sthread.Write(&ready) // the bug: set and signalled without the lock
				ready = true
				c.Signal()
			})
			rw.RLock()
			sthread.Read(&ready)
			if !ready {
				c.Wait()
			}
			rw.RUnlock()
		}},
		{"a poll with default takes a value sent after another goroutine let its sender go on", func() {
			values := sthread.MakeChan[int](0)
			other := sthread.MakeChan[int](0)
			done := sthread.MakeChan[int](1)
			// Takes the sender's first value: the sender is woken, and
			// its wake was taken to depend on every later select of its
			// channels, which ordered the poll below before its second
			// send and hid the schedule in which that send came first.
			sthread.Go(func() { sthread.Select(other.RecvCase(nil, nil), sthread.Default()) })
			sthread.Go(func() { other.Send(1); values.Send(2); done.Recv() })
			sthread.Select(other.RecvCase(nil, nil), values.RecvCase(nil, nil), sthread.Default())
			values.Send(3) // the bug: blocks for ever once the poll took the sender's value
		}},
		{"a close after a parked select was woken", func() {
			c, d := sthread.MakeChan[int](0), sthread.MakeChan[int](0)
			sthread.Go(func() {
				sthread.Select(c.SendCase(1), d.RecvCase(nil, nil))
				c.Close()
			})
			c.Recv()
			sthread.Select(c.SendCase(2), c.RecvCase(nil, nil)) // the bug: a send on c, closed once the goroutine goes on
		}},
		{"a failure ends the execution before another goroutine's select", func() {
			c, d := sthread.MakeChan[int](0), sthread.MakeChan[int](0)
			e := sthread.MakeChan[int](1)
			sthread.Go(func() {
				c.Close()
				sthread.Select(d.RecvCase(nil, nil), sthread.Default())
				sthread.Select(c.SendCase(1), e.RecvCase(nil, nil))
			})
			sthread.Go(func() {
				sthread.Select(c.SendCase(1), c.RecvCase(nil, nil)) // the bug: may send on the closed c
			})
			c.Send(1)
			d.Send(1)
		}},
		{"a broadcast before the second waiter registers", func() {
			var mu sthread.Mutex
			c := sthread.NewCond(&mu)
			var wg sthread.WaitGroup
			for range 2 {
				wg.Go(func() {
					mu.Lock()
					c.Wait() // the bug: no condition checked
					mu.Unlock()
				})
			}
			c.Broadcast()
			wg.Wait()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keys := func(opts ...sthread.Option) map[string]bool {
				res, err := sthread.Explore(tt.f, append(opts, sthread.All())...)
				if err != nil {
					t.Fatal(err)
				}
				m := map[string]bool{}
				for _, b := range res.Bugs {
					m[b.Kind.String()+"@"+b.Where] = true
				}
				return m
			}
			all, red := keys(sthread.NoReduction()), keys()
			if len(all) == 0 {
				t.Fatal("running every schedule finds no bug: the program does not test the refinement")
			}
			for k := range all {
				if !red[k] {
					t.Errorf("DPOR misses %s (found %v)", k, red)
				}
			}
		})
	}
}

// workerPipeline: a producer sends three jobs on an unbuffered channel to
// two workers, which send the squares back to the checked function.
func workerPipeline() {
	jobs := sthread.MakeChan[int](0)
	results := sthread.MakeChan[int](0)
	var wg sthread.WaitGroup
	for range 2 {
		wg.Go(func() {
			for {
				v, ok := jobs.Recv2()
				if !ok {
					return
				}
				results.Send(v * v)
			}
		})
	}
	sthread.Go(func() {
		for i := 1; i <= 3; i++ {
			jobs.Send(i)
		}
		jobs.Close()
	})
	sum := 0
	for range 3 {
		sum += results.Recv()
	}
	wg.Wait()
	sthread.Assert(sum == 14, "a result was lost")
}

// The pipeline with two workers and three jobs (over 460,000 executions
// unfinished with the first Go relation, and over 300,000 schedules when
// running every one) is exhausted in 36 executions, no two of them in the
// same trace.
func TestDPORWorkerPipeline(t *testing.T) {
	red, res := countTraces(t, workerPipeline, search.NewDPOR())
	if !res.Complete || len(res.Bugs) > 0 {
		t.Fatalf("complete %v, bugs %v", res.Complete, res.Bugs)
	}
	if red.Runs != len(red.Traces) || red.Runs > 36 {
		t.Errorf("%d executions in %d traces; want one per trace, at most 36", red.Runs, len(red.Traces))
	}
}
