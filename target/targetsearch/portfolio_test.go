package targetsearch_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/target/targetsearch"
)

// A program of one goroutine has one schedule: the portfolio's exhaustive
// member explores it in its first execution and the search ends there,
// however long that execution takes in wall time. Here the first execution
// waits past the member's lead without computing (as the first execution
// of a test does on a loaded machine): in wall time that spent the lead,
// the other members took their turns before the exhaustive one could end
// the search, and the same test counted 1 execution in one run and 27 in
// another (go-cache's TestAdd); in the process's CPU time it costs
// nothing.
func TestServePortfolioSharesCPUTime(t *testing.T) {
	tests := []struct {
		name string
		wait time.Duration // the first execution's wait
	}{
		{"fast", 0},
		{"first execution past the lead", search.PortfolioLeadTime + 100*time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := true
			var mu sthread.Mutex
			ex, release := sthread.Executor(func() {
				mu.Lock()
				if first {
					first = false
					time.Sleep(tt.wait)
				}
				mu.Unlock()
			})
			defer release()
			var buf bytes.Buffer
			spec := &targetsearch.Spec{Request: hunt.Request{MaxDepth: 100}}
			if err := targetsearch.Serve(ex, spec, &buf, nil, targetsearch.Controls{}); err != nil {
				t.Fatal(err)
			}
			res, err := targetsearch.Read(&buf, nil)
			if err != nil || res == nil {
				t.Fatalf("Read: %v, %v", res, err)
			}
			if res.Error != "" || !res.Complete || len(res.Bugs) != 0 || res.Stats.Executions != 1 {
				t.Errorf("complete %v, %d executions, %d bugs, error %q; want complete after 1 execution, no bug",
					res.Complete, res.Stats.Executions, len(res.Bugs), res.Error)
			}
		})
	}
}
