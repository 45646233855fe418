package session

import (
	"context"
	"fmt"

	"github.com/stdbg/stdbg/engine/search"
)

// Estimate is a run of probes only: the size and time of the exhaustive
// search a plan's Spec names (its own exhaustive dfs, or a portfolio's
// exhaustive member), estimated by search.EstimateTree.
type Estimate struct {
	// Spec is the search (normal); MaxDepth, its depth bound.
	Spec     search.Spec
	MaxDepth int
	// Probes bounds the probes (0: search.DefaultProbes); the context
	// bounds their time.
	Probes int
	// Seed seeds the probes' walks.
	Seed uint64
	// Progress, if not nil, is told of the estimate as the probes run.
	Progress func(*search.Estimate)
}

// Estimate runs e's probes on the session's target, out of process (each
// probe an execution the checker drives). A search that cannot end (random,
// PCT, bounded or stateful) has nothing to estimate: an error says so.
func (s *Session) Estimate(ctx context.Context, e *Estimate) (*search.Estimate, error) {
	n, _, err := e.Spec.Normal()
	if err != nil {
		return nil, err
	}
	if n.Sampled() || n.Bounded() || n.Stateful {
		return nil, fmt.Errorf("estimating %s: only an exhaustive search (dfs or the portfolio's) can be estimated", n.Describe())
	}
	x := n.Exhaustive()
	est, err := search.EstimateTree(ctx, s.checker, search.EstimateOptions{Reduction: x.Reduction, MaxDepth: e.MaxDepth,
		Probes: e.Probes, Seed: e.Seed, Progress: e.Progress})
	if err != nil {
		return est, fmt.Errorf("estimating the search of %s: %w", s.Target.Arg, err)
	}
	return est, nil
}
