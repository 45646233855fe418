package search_test

import (
	"context"
	"fmt"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// counter is a toy program: two threads increment a shared counter without
// a lock, each reading it (one transition) then writing it back plus one
// (another transition); at the end the counter must be 2.
type counter struct{}

type counterRun struct {
	x       int
	local   [3]int // each thread's value read
	pc      [3]int // each thread's next step: 0 read, 1 write, 2 done
	threads []search.Thread
	end     *search.Outcome
	steps   int
}

func (counter) Start() (search.Execution, error) {
	r := &counterRun{}
	r.update()
	return r, nil
}

func (r *counterRun) update() {
	r.threads = r.threads[:0]
	for id := 1; id <= 2; id++ {
		switch r.pc[id] {
		case 0:
			r.threads = append(r.threads, search.Thread{ID: id, Op: syncmodel.Op{Kind: syncmodel.Read, Obj: 0x10, Arg: 8}, Enabled: true})
		case 1:
			r.threads = append(r.threads, search.Thread{ID: id, Op: syncmodel.Op{Kind: syncmodel.Write, Obj: 0x10, Arg: 8}, Enabled: true})
		}
	}
	if len(r.threads) == 0 {
		r.end = &search.Outcome{Kind: search.Exited, Step: r.steps}
		if r.x != 2 {
			r.end = &search.Outcome{Kind: search.AssertionFailure, Message: "assertion `x == 2' failed", Where: "main.c:12", Step: r.steps}
		}
	}
}

func (r *counterRun) Threads() []search.Thread { return r.threads }
func (r *counterRun) Ended() *search.Outcome   { return r.end }
func (r *counterRun) Close() error             { return nil }

func (r *counterRun) Step(s schedule.Step) error {
	if s.Thread < 1 || s.Thread > 2 || r.pc[s.Thread] > 1 {
		return fmt.Errorf("thread %d cannot run", s.Thread)
	}
	if r.pc[s.Thread] == 0 {
		r.local[s.Thread] = r.x
	} else {
		r.x = r.local[s.Thread] + 1
	}
	r.pc[s.Thread]++
	r.steps++
	r.update()
	return nil
}

func Example() {
	res, err := search.Explore(context.Background(), counter{}, search.NewDFS(), search.Options{MaxDepth: 100})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, b := range res.Bugs {
		fmt.Printf("%s: %s\nPath = %v\n", b.Outcome.Kind, b.Outcome.Message, b.Schedule)
	}
	fmt.Println("executions:", res.Stats.Executions)

	// Replay the counterexample, as a user would from the printed path.
	s, _ := schedule.Parse("Path = 1;2;2;1")
	e, _ := counter{}.Start()
	defer e.Close()
	r, _ := search.Replay(e, s, 100)
	fmt.Println("replayed:", r.Outcome.Kind, r.Executed)
	// Output:
	// assertion: assertion `x == 2' failed
	// Path = 1;2;2;1
	// executions: 2
	// replayed: assertion 1;2;2;1
}

// Two threads writing different variables: the two orders are one trace.
func ExampleTraceKey() {
	w := func(thread int, addr uint64) search.Event {
		return search.Event{Step: schedule.Step{Thread: thread, Choice: schedule.NoChoice},
			Op: syncmodel.Op{Kind: syncmodel.Write, Obj: addr, Arg: 4}}
	}
	a := []search.Event{w(1, 0x10), w(2, 0x20)}
	b := []search.Event{w(2, 0x20), w(1, 0x10)}
	c := []search.Event{w(2, 0x10), w(1, 0x10)}
	fmt.Println(search.TraceKey(a) == search.TraceKey(b), search.TraceKey(a) == search.TraceKey(c))
	// Output: true false
}
