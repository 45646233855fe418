package ltl_test

import (
	"fmt"

	"github.com/stdbg/stdbg/ltl"
	"github.com/stdbg/stdbg/schedule"
	"github.com/stdbg/stdbg/search"
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
