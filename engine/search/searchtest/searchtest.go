// Package searchtest provides helpers for tests of search strategies.
package searchtest

import "github.com/stdbg/stdbg/engine/search"

// TraceCounter wraps a strategy and counts the executions that ran to
// their end (not pruned, not cut by the depth bound) and their distinct
// Mazurkiewicz traces (search.TraceKey): an optimal reduction runs exactly
// one execution per trace.
type TraceCounter struct {
	search.Strategy
	// Traces counts the executions of each trace, by trace key.
	Traces map[string]int
	// Runs is the number of executions counted.
	Runs int
}

// NewTraceCounter returns a TraceCounter around st.
func NewTraceCounter(st search.Strategy) *TraceCounter {
	return &TraceCounter{Strategy: st, Traces: make(map[string]int)}
}

// End counts the execution and passes the report on.
func (c *TraceCounter) End(r *search.Report) {
	if r.Outcome != nil && !r.Pruned && !r.DepthLimited {
		c.Traces[search.TraceKey(r.Trace)]++
		c.Runs++
	}
	c.Strategy.End(r)
}
