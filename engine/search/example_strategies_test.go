package search_test

import (
	"context"
	"fmt"

	"github.com/stdbg/stdbg/engine/search"
)

// Without a delay, the round-robin scheduler runs one schedule, which
// does not lose the update; one delay (a preemption here) shows it.
func ExampleNewDelayBounding() {
	for k := range 2 {
		db := search.NewDelayBounding(k)
		res, err := search.Explore(context.Background(), counter{}, db, search.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, b := range db.Bounds() {
			fmt.Printf("K=%d: %d delays: %d executions, complete %v\n", k, b.Preemptions, b.Executions, b.Complete)
		}
		fmt.Printf("K=%d: %d bugs\n", k, len(res.Bugs))
	}
	// Output:
	// K=0: 0 delays: 1 executions, complete true
	// K=0: 0 bugs
	// K=1: 0 delays: 1 executions, complete true
	// K=1: 1 delays: 2 executions, complete false
	// K=1: 1 bugs
}

// The lost update of the counter needs one preemption: none of the two
// schedules without one shows it.
func ExampleNewPreemptionBounding() {
	for k := range 2 {
		pb := search.NewPreemptionBounding(k)
		res, err := search.Explore(context.Background(), counter{}, pb, search.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("K=%d: %d bugs, rounds %+v\n", k, len(res.Bugs), pb.Bounds())
	}
	// Output:
	// K=0: 0 bugs, rounds [{Preemptions:0 Delays:false Executions:2 Complete:true}]
	// K=1: 1 bugs, rounds [{Preemptions:0 Delays:false Executions:2 Complete:true} {Preemptions:1 Delays:false Executions:1 Complete:false}]
}

// A sampled search runs until a bug, an execution limit or a deadline; the
// seed makes it repeatable.
func ExampleNewPCT() {
	for range 2 {
		res, err := search.Explore(context.Background(), counter{}, search.NewPCT(2, 42), search.Options{MaxExecutions: 100})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(res.Bugs[0].Schedule, "after", res.Stats.Executions, "executions; complete:", res.Complete)
	}
	// Output:
	// 2;1;1;2 after 5 executions; complete: false
	// 2;1;1;2 after 5 executions; complete: false
}
