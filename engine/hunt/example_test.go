package hunt_test

import (
	"context"
	"fmt"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/hunt"
)

// A hunt of two threads that take two mutexes in opposite orders: the
// search finds the deadlock, minimisation shrinks its schedule, and the
// front end's replay explains it.
func ExampleRun() {
	rt := embrace() // a scripted runtime standing for the program
	res, err := hunt.Run(context.Background(), hunt.Config{
		Executor: executor.New(rt, executor.Options{}),
		Request:  hunt.Request{MaxDepth: 100, Minimise: true},
		Explain:  explainer(rt),
		ReplayCommand: func(sched string) string {
			return "stdbg replay --schedule '" + sched + "' ./embrace"
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range res.Findings {
		fmt.Println(f.Report.Banner)
		fmt.Println("Path =", f.Report.Path)
		fmt.Println(f.Report.Minimised.Proven)
		fmt.Println(f.Report.Replay)
	}
	// Output:
	// *** DEADLOCK DETECTED ***
	// Path = 1;1;2
	// true
	// stdbg replay --schedule '1;1;2' ./embrace
}
