package cli

import (
	"testing"

	"github.com/stdbg/stdbg/engine/search"
)

// TestFindSeedRepeats checks that a seed repeats a sampled search.
// flagWords says search.Spec's refusals in the words of find's flags.
func TestFlagWords(t *testing.T) {
	for _, tc := range []struct {
		spec search.Spec
		want string
	}{
		{search.Spec{BoundBy: search.BoundPreemptions, Bound: 2, Stateful: true},
			"--visited, --livelock and --ltl need the full state graph: they cannot be combined with --preemptions: a state reached with fewer preemptions is not the same search node"},
		{search.Spec{BoundBy: search.BoundDelays, Bound: 1, Stateful: true},
			"--visited, --livelock and --ltl need the full state graph: they cannot be combined with --delays: a state reached with fewer delays is not the same search node"},
		{search.Spec{Strategy: search.StrategyRandom, Stateful: true},
			"--visited, --livelock and --ltl need the full state graph: they cannot be combined with --strategy random (use --strategy dfs)"},
		{search.Spec{Strategy: search.StrategyPortfolio, Stateful: true},
			"--visited, --livelock and --ltl need the full state graph: they cannot be combined with --strategy portfolio (use --strategy dfs)"},
		{search.Spec{Strategy: search.StrategyPCT, BoundBy: search.BoundPreemptions},
			"--preemptions bounds the dfs strategy, not pct"},
		{search.Spec{Strategy: search.StrategyRandom, Reduction: search.ReductionDPOR},
			"--reduction dpor is dfs's, not random's"},
	} {
		err := tc.spec.Check()
		if err == nil {
			t.Errorf("%+v: accepted", tc.spec)
			continue
		}
		if got := flagWords(err.Error()); got != tc.want {
			t.Errorf("%+v: %q\nwant %q", tc.spec, got, tc.want)
		}
	}
}
