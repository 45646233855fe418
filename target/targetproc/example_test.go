package targetproc_test

import (
	"context"
	"fmt"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// ExampleProcess_Reused explores a C program exhaustively. Every execution
// after the first starts in the process of the one before, reset in place
// to its state at the program's first thread operation, with the program's
// thread kept parked from one execution to the next instead of created
// again.
func ExampleProcess_Reused() {
	exe, err := ctarget.Build("../../examples/c/deadly-embrace.c")
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := ctarget.Start(targetproc.Config{Binary: exe, Flags: wire.FlagFastExit})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	c := executor.New(p, executor.Options{FastExit: true})
	res, err := search.Explore(context.Background(), c, search.NewDFS(), search.Options{MaxDepth: 10, All: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("executions:", res.Stats.Executions)
	fmt.Println("started in a reset process:", p.Reused())
	fmt.Println("bug:", res.Bugs[0].Outcome.Kind)
	// Output:
	// executions: 62
	// started in a reset process: 61
	// bug: deadlock
}
