package gotest

import (
	"testing"
	"time"
)

// The summary's line counts the tests by status and says the budget of
// each test's search, as go test's output says its -timeout only when it
// strikes but a bounded search needs it said.
func TestSummaryLine(t *testing.T) {
	for _, tt := range []struct {
		name string
		sum  Summary
		want string
	}{
		{"budget", Summary{Packages: 2, Tests: 3, OK: 1, Bugs: 1, Incomplete: 1, Elapsed: 1500 * time.Millisecond, Budget: time.Minute},
			"stdbg test: 3 tests in 2 packages: 1 ok, 1 BUG, 1 incomplete, 1.5s; budget 1m0s per test"},
		{"no budget", Summary{Packages: 1, Tests: 1, OK: 1, Cached: 1, Elapsed: 200 * time.Millisecond},
			"stdbg test: 1 test in 1 package: 1 ok (1 cached), 0.2s; no budget per test"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.sum.String(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
