package grade

import (
	"strings"
	"testing"

	"github.com/stdbg/stdbg/session"
)

// A check's search is told to the student from the search's coverage: a
// program with constructs the model does not see is never "exhaustive".
func TestCoverageWords(t *testing.T) {
	tests := []struct {
		name string
		cov  session.Coverage
		want string
	}{
		{"exhaustive", session.Coverage{Kind: session.Exhaustive, Complete: true, Executions: 4}, "exhaustive: every schedule explored (4 schedules)"},
		{"not modelled", session.Coverage{Kind: session.CompleteModelled, Complete: true, Executions: 4,
			NotModelled: []string{"sync.Pool (pool.go:12)"}}, "complete over the operations stdbg sees (4 schedules), not exhaustive: sync.Pool (pool.go:12)"},
		{"depth", session.Coverage{Kind: session.Exhaustive, Complete: true, DepthLimited: true, MaxDepth: 50, Executions: 1},
			"every schedule up to 50 steps explored (1 schedule)"},
		{"budget", session.Coverage{Kind: session.Incomplete, BudgetSpent: true, Executions: 9}, "incomplete: 9 schedules explored within the budget of 2s"},
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
