package session_test

import (
	"context"
	"fmt"
	"io"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/frontend/session"
)

// A replay of the schedule of a deadlock, one scheduling step at a time:
// Before is where a debugger stops before each step (stdbg replay --gdb
// and --dlv, an editor's debug adapter), here to print it; past the
// schedule the default policy runs the program on (step 4) to where it
// deadlocks. The report is stdbg replay's.
func ExampleSession_Replay() {
	t, err := session.Resolve([]string{"../../examples/c/deadly-embrace.c"}, session.Build{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := session.Start(t, session.Options{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	r, err := session.ParseReplay("1;1;2")
	if err != nil {
		fmt.Println(err)
		return
	}
	r.Before = func(p hunt.Point) error {
		fmt.Printf("before step %d: thread %d of %d runs\n", p.Step, p.Next.Thread, len(p.Threads))
		return nil
	}
	rd, err := s.Replay(context.Background(), r)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rd.Report.Banner)
	fmt.Println("Path =", rd.Report.Path)
	fmt.Println("Executed =", rd.Report.Executed)
	for _, st := range rd.Report.Steps {
		fmt.Printf("step %d  thread %d  %s\n", st.N, st.Thread, st.Call)
	}
	fmt.Println("failed:", rd.Failed())
	// Output:
	// before step 1: thread 1 of 1 runs
	// before step 2: thread 1 of 2 runs
	// before step 3: thread 2 of 2 runs
	// before step 4: thread 2 of 2 runs
	// *** DEADLOCK DETECTED ***
	// Path = 1;1;2
	// Executed = 1;1;2;2
	// step 1  thread 1  pthread_create -> thread 2
	// step 2  thread 1  pthread_mutex_lock(first)
	// step 3  thread 2  thread starts
	// step 4  thread 2  pthread_mutex_lock(second)
	// failed: true
}
