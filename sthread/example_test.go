package sthread_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
)

// Two goroutines take two mutexes in opposite orders. Explore finds the
// schedule in which each holds the mutex the other wants; in a test, Check
// would fail the test with the same report.
func Example() {
	res, err := sthread.Explore(func() {
		var first, second sthread.Mutex
		x, y := 0, 0 // guarded by first and second
		sthread.Go(func() {
			second.Lock()
			first.Lock()
			x, y = x+1, y+1
			first.Unlock()
			second.Unlock()
		})
		first.Lock()
		second.Lock()
		x, y = x+2, y+2
		second.Unlock()
		first.Unlock()
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	bug := res.Bugs[0]
	fmt.Println(bug.Kind, bug.Schedule)
	for _, w := range bug.Report.Waits {
		fmt.Println("thread", w.Thread, w.Text)
	}
	// Output:
	// deadlock 1;1;2;2
	// thread 1 waits in Mutex.Lock for second (held by thread 2)
	// thread 2 waits in Mutex.Lock for first (held by thread 1) (started at example_test.go:19)
}

// RunSchedule runs one schedule, such as the one a report prints, and
// returns the bug it ends in.
func ExampleRunSchedule() {
	transfer := func() {
		balance := 100
		var wg sthread.WaitGroup
		for range 2 {
			wg.Go(func() {
				sthread.Read(&balance)
				b := balance
				sthread.Write(&balance)
				balance = b - 10
			})
		}
		wg.Wait()
		sthread.Assert(balance == 80, fmt.Sprintf("balance %d, want 80", balance))
	}
	bug, err := sthread.RunSchedule("1;1;1;1;2;2;3;3;3;3;3;2;2;2;1", transfer)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(bug.Message)
	bug, _ = sthread.RunSchedule("", transfer) // the default policy alone
	fmt.Println(bug)
	// Output:
	// assertion failed: balance 90, want 80
	// <nil>
}

// Outside Check, the primitives are the real ones: a Chan is a real channel
// and Select a real select.
func ExampleSelect() {
	jobs := sthread.MakeChan[int](1)
	quit := sthread.MakeChan[struct{}](0)
	jobs.Send(7)
	var job int
	for range 2 {
		switch sthread.Select(jobs.RecvCase(&job, nil), quit.RecvCase(nil, nil), sthread.Default()) {
		case 0:
			fmt.Println("job", job)
		case 1:
			fmt.Println("quit")
		case 2:
			fmt.Println("nothing to do")
		}
	}
	// Output:
	// job 7
	// nothing to do
}

// A select with several ready cases is a choice the search explores: here
// the case of b runs in the second execution.
func ExampleSelect_choice() {
	res, _ := sthread.Explore(func() {
		a := sthread.MakeChan[string](1)
		b := sthread.MakeChan[string](1)
		a.Send("a")
		b.Send("b")
		var v string
		sthread.Select(a.RecvCase(&v, nil), b.RecvCase(&v, nil))
		sthread.Assert(v == "a", "b came first")
	})
	fmt.Println(res.Bugs[0].Schedule, res.Stats.Executions)
	// Output:
	// 1;1;1:1 2
}

// All iterates over the values received until the channel is closed.
func ExampleChan_All() {
	squares := sthread.MakeChan[int](0)
	sthread.Go(func() {
		for i := 1; i <= 3; i++ {
			squares.Send(i * i)
		}
		squares.Close()
	})
	for v := range squares.All() {
		fmt.Println(v)
	}
	// Output:
	// 1
	// 4
	// 9
}

// A goroutine blocked for ever when the checked function returns is a leak.
func ExampleExplore_leak() {
	res, _ := sthread.Explore(func() {
		result := sthread.MakeChan[int](0)
		sthread.Go(func() { result.Send(42) })
		// The caller gives up without receiving.
	}, sthread.All())
	for _, b := range res.Bugs {
		fmt.Println(b.Kind, "-", b.Message)
	}
	// Output:
	// leak - the program exited while thread 2 was blocked forever
}

// Choose lets the search try every value of a decision of the program.
func ExampleChoose() {
	res, _ := sthread.Explore(func() {
		retries := sthread.Choose(3)
		sthread.Assert(retries < 2, fmt.Sprintf("%d retries", retries))
	})
	fmt.Println(res.Bugs[0].Message, "with schedule", res.Bugs[0].Schedule)
	// Output:
	// assertion failed: 2 retries with schedule 1:2
}

// WaitGroup.Go starts a goroutine with sthread.Go and counts it in the
// group.
func ExampleWaitGroup_Go() {
	var wg sthread.WaitGroup
	var mu sthread.Mutex
	var words []string
	for _, w := range []string{"b", "a"} {
		wg.Go(func() {
			mu.Lock()
			words = append(words, w)
			mu.Unlock()
		})
	}
	wg.Wait()
	fmt.Println(len(words))
	// Output:
	// 2
}

// A close of a closed channel panics, as in Go: unrecovered, it is a
// crash, reported with Go's message and the channel's name.
func ExampleChan_Close() {
	res, _ := sthread.Explore(func() {
		done := sthread.MakeChan[struct{}](0)
		for range 2 {
			sthread.Go(func() { done.Close() })
		}
	})
	fmt.Println(res.Bugs[0].Kind, "-", res.Bugs[0].Message)
	// Output:
	// crash - panic: close of closed channel done
}

// The report is plain text.
func ExampleBug_String() {
	res, _ := sthread.Explore(func() {
		var mu sthread.Mutex
		mu.Unlock()
	})
	text := res.Bugs[0].String()
	fmt.Println(strings.SplitN(text, "\n", 2)[0])
	// Output:
	// *** MISUSE OF THE THREAD API ***
}

// A function with too many schedules to explore them all can be sampled:
// here PCT, looking for bugs that need two ordering constraints, within
// 1000 executions; the same seed repeats the same search.
func ExampleStrategy() {
	res, err := sthread.Explore(func() {
		var first, second sthread.Mutex
		n := 0 // guarded by first and second
		sthread.Go(func() {
			second.Lock()
			first.Lock()
			n++
			first.Unlock()
			second.Unlock()
		})
		first.Lock()
		second.Lock()
		n++
		second.Unlock()
		first.Unlock()
	}, sthread.Strategy(search.NewPCT(2, 1)), sthread.MaxExecutions(1000), sthread.Budget(time.Minute))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Bugs[0].Kind, "found; complete:", res.Complete)
	// Output:
	// deadlock found; complete: false
}

// Livelock finds two goroutines that yield to each other forever without
// making progress; State declares what they share.
func ExampleLivelock() {
	res, _ := sthread.Explore(func() {
		var turn int
		sthread.State("turn", func() any { return turn })
		done := sthread.MakeChan[bool](0)
		sthread.Go(func() {
			for { // waits for a turn that never comes
				turn = 2
				sthread.Yield()
			}
		})
		for turn != 1 {
			sthread.Yield()
		}
		sthread.Progress()
		done.Recv()
	}, sthread.Livelock())
	for _, b := range res.Bugs {
		fmt.Println(b.Kind, "-", b.Schedule)
	}
	// Output:
	// livelock - 1;2 (1;2)*
}

// LTL checks a temporal property of propositions the program declares.
func ExampleLTL() {
	res, _ := sthread.Explore(func() {
		var requested, served bool
		sthread.Prop("r", func() bool { return requested })
		sthread.Prop("s", func() bool { return served })
		sthread.State("vars", func() any { return [2]bool{requested, served} })
		var mu sthread.Mutex
		sthread.Go(func() {
			mu.Lock()
			requested = true
			mu.Unlock()
		})
		mu.Lock()
		if requested {
			served = true
		}
		mu.Unlock()
	}, sthread.LTL("G(r -> F s)"))
	for _, b := range res.Bugs {
		fmt.Println(b.Kind, "-", b.Message)
	}
	// Output:
	// liveness - the run below violates G (r -> F s): the program ends, and its final state repeats forever
}

// A test whose bug is deliberate (a teaching example) runs under stdbg
// find, which reports the bug, and is skipped by a plain go test.
func ExampleUnderStdbg() {
	if !sthread.UnderStdbg() {
		fmt.Println("skipped: run stdbg find -run TestEmbrace ./examples/go/embrace-test")
	}
	// Output: skipped: run stdbg find -run TestEmbrace ./examples/go/embrace-test
}

// Sleep waits on the execution's virtual clock: the worker's 50ms and the
// watchdog's 100ms pass at once, and a wake races with everything else, so
// the search finds the schedule where the watchdog sends before the worker
// woken earlier does.
func ExampleSleep() {
	res, err := sthread.Explore(func() {
		first := sthread.MakeChan[string](2)
		sthread.Go(func() { sthread.Sleep(50 * time.Millisecond); first.Send("worker") })
		sthread.Go(func() { sthread.Sleep(100 * time.Millisecond); first.Send("watchdog") })
		sthread.Assert(first.Recv() == "worker", "the watchdog came first")
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Bugs[0].Message)
	// Output: assertion failed: the watchdog came first
}
