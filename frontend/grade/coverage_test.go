package grade

import (
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/session"
)

// A check's search is told to the student from the search's coverage: a
// program with constructs the model does not see is never "exhaustive",
// nor is a search whose executions were cut at the depth bound complete.
func TestCoverageWords(t *testing.T) {
	tests := []struct {
		name string
		cov  session.Coverage
		want string
	}{
		{"exhaustive", session.Coverage{Kind: session.Exhaustive, Complete: true, Executions: 4}, "exhaustive: every schedule explored (4 schedules)"},
		{"not modelled", session.Coverage{Kind: session.CompleteModelled, Complete: true, Executions: 4,
			NotModelled: []string{"sync.Pool (pool.go:12)"}}, "complete over the modelled operations: every schedule explored (4 schedules); not exhaustive: the search does not see sync.Pool (pool.go:12)"},
		{"depth", session.Coverage{Kind: session.Exhaustive, Complete: true, DepthLimited: true, MaxDepth: 50, Executions: 1},
			"incomplete: 1 schedule explored, some cut at 50 steps"},
		{"scope", session.Coverage{Kind: session.Exhaustive, Complete: true, Executions: 2, Scope: "goroutine operations"},
			"exhaustive: every schedule explored (2 schedules, over goroutine operations)"},
		{"budget", session.Coverage{Kind: session.Incomplete, BudgetSpent: true, Executions: 9}, "incomplete: 9 schedules explored within the time bound of 2s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := coverage(&session.Found{Coverage: tt.cov}, Limits{Budget: Duration(2e9)})
			if !strings.Contains(got, tt.want) || (tt.cov.Kind != session.Exhaustive && strings.HasPrefix(got, "exhaustive")) {
				t.Errorf("%q, want %q", got, tt.want)
			}
		})
	}
}
