package hunt

import (
	"time"

	"github.com/stdbg/stdbg/engine/search"
)

// Request is a hunt as every layer hands it on: the search, its bounds,
// its budget and the minimisation of its bugs. It is written once, by a
// front end (stdbg's settings, sthread's options, an assignment's limits),
// and carried whole, never copied field by field: Config and session.Plan
// embed it, and targetsearch.Spec embeds it to hand it to a Go target as
// JSON, in which its fields keep these names.
type Request struct {
	// Search is the search (search.Spec): its strategy, reduction, bound,
	// seed and whether it is stateful.
	Search search.Spec `json:"search"`
	// MaxDepth bounds an execution's transitions (<= 0: no bound; cut
	// executions are counted, not bugs) and minimisation's.
	MaxDepth int `json:"max_depth"`
	// All keeps exploring after the first bug and reports each distinct
	// bug once.
	All bool `json:"all,omitempty"`
	// MaxExecutions stops the search after that many executions (0: no
	// limit).
	MaxExecutions int64 `json:"max_executions,omitempty"`
	// Budget bounds the wall time of the search and the minimisation
	// together (0: no bound); Deadlines splits it.
	Budget time.Duration `json:"budget,omitempty"`
	// Minimise shrinks each bug's schedule (search.Minimise, exhaustive)
	// with at most MinimiseExecutions executions (0: the default).
	Minimise           bool  `json:"minimise,omitempty"`
	MinimiseExecutions int64 `json:"minimise_executions,omitempty"`
	// Shard and Shards select a part of a divided exhaustive search (see
	// search.Split); Shards <= 1 is the whole search.
	Shard  int `json:"shard,omitempty"`
	Shards int `json:"shards,omitempty"`
}

// SearchOptions are the search's options that the request sets: the depth
// bound, All and the execution limit, on top of o's (its callbacks and
// stateful search).
func (r *Request) SearchOptions(o search.Options) search.Options {
	o.MaxDepth, o.All, o.MaxExecutions = r.MaxDepth, r.All, r.MaxExecutions
	return o
}
