package ltl_test

import (
	"fmt"

	"github.com/stdbg/stdbg/engine/ltl"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
)

func ExampleCheck() {
	// A program whose thread 1 requests (r) and then spins forever without
	// ever entering its critical section (cs).
	step := schedule.Step{Thread: 1, Choice: schedule.NoChoice}
	g := &search.Graph{Names: []string{"r", "cs"}, Nodes: []search.Node{
		{Enabled: []int{1}, Props: []bool{false, false}, Edges: []search.Edge{{Step: step, To: 1, Op: "request"}}},
		{Enabled: []int{1}, Props: []bool{true, false}, Edges: []search.Edge{{Step: step, To: 1, Op: "sched_yield"}}},
	}}
	f, err := ltl.Parse("G(r -> F cs)")
	if err != nil {
		fmt.Println(err)
		return
	}
	v, err := ltl.Check(g, f)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(search.LassoString(v.Lasso.Stem, v.Lasso.Cycle))
	fmt.Println(v.Outcome().Message)
	// Output:
	// 1;1;1 (1)*
	// the run below violates G (r -> F cs): its cycle of 1 transition repeats forever, weakly fair to every thread
}

func ExampleParse() {
	f, err := ltl.Parse("G(want -> F enter) && !(a U b)")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f, f.Atoms())
	_, err = ltl.Parse("G(want -> ")
	fmt.Println(err)
	// Output:
	// (G (want -> F enter) && !(a U b)) [want enter a b]
	// formula ends too early
}

func ExampleCheckFair() {
	// Threads 1 and 2 take a lock in turn; thread 3 waits for it, and is
	// enabled only in the states where the lock is free. Once it has the
	// lock it sets done.
	step := func(th int) schedule.Step { return schedule.Step{Thread: th, Choice: schedule.NoChoice} }
	g := &search.Graph{Names: []string{"done"}, Nodes: []search.Node{
		{Enabled: []int{1, 2, 3}, Props: []bool{false}, Edges: []search.Edge{{Step: step(1), To: 1, Op: "lock"}, {Step: step(3), To: 4, Op: "lock"}}},
		{Enabled: []int{1}, Props: []bool{false}, Edges: []search.Edge{{Step: step(1), To: 2, Op: "unlock"}}},
		{Enabled: []int{1, 2, 3}, Props: []bool{false}, Edges: []search.Edge{{Step: step(2), To: 3, Op: "lock"}, {Step: step(3), To: 4, Op: "lock"}}},
		{Enabled: []int{2}, Props: []bool{false}, Edges: []search.Edge{{Step: step(2), To: 0, Op: "unlock"}}},
		{Props: []bool{true}, End: &search.Outcome{Kind: search.Exited}},
	}}
	f, err := ltl.Parse("F done")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, fair := range []search.Fairness{search.WeakFairness, search.StrongFairness} {
		v, err := ltl.CheckFair(g, f, fair)
		switch {
		case err != nil:
			fmt.Println(err)
		case v == nil:
			fmt.Printf("%s: holds\n", fair)
		default:
			fmt.Printf("%s: %s\n", fair, search.LassoString(v.Lasso.Stem, v.Lasso.Cycle))
		}
	}
	// Output:
	// weakly fair: 1;1;2 (2;1;1;2)*
	// strongly fair: holds
}
