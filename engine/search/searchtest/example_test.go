package searchtest_test

import (
	"context"
	"fmt"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/engine/search/searchtest"
	"github.com/stdbg/stdbg/sthread"
)

// Two goroutines each increment a counter under the same mutex. The exhaustive DFS runs
// every schedule and meets each trace many times; DPOR runs one execution
// per trace.
func ExampleTraceCounter() {
	program := func() {
		var mu sthread.Mutex
		var wg sthread.WaitGroup
		n := 0
		wg.Add(2)
		for range 2 {
			sthread.Go(func() {
				mu.Lock()
				n++
				mu.Unlock()
				wg.Done()
			})
		}
		wg.Wait()
	}
	for _, st := range []struct {
		name string
		s    search.Strategy
	}{{"DFS", search.NewDFS()}, {"DPOR", search.NewDPOR()}} {
		ex, release := sthread.Executor(program)
		c := searchtest.NewTraceCounter(st.s)
		_, err := search.Explore(context.Background(), ex, c, search.Options{All: true})
		release()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %d executions, %d traces\n", st.name, c.Runs, len(c.Traces))
	}
	// Output:
	// DFS: 1182 executions, 2 traces
	// DPOR: 2 executions, 2 traces
}
