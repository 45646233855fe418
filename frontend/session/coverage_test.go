package session

import (
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
)

// The coverage of a search, as every front end says it: one value, its
// kind, its line and its short form, from the plan and what was found.
func TestCoverage(t *testing.T) {
	normal := func(s search.Spec) search.Spec {
		n, _, err := s.Normal()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	dfs := normal(search.Spec{Strategy: search.StrategyDFS})
	portfolio := normal(search.Spec{Seed: 7})
	random := normal(search.Spec{Strategy: search.StrategyRandom, Seed: 7})
	complete := search.Result{Complete: true, Stats: search.Stats{Executions: 12}}
	goTarget := &Target{Go: true}
	cgo := &Target{Go: true, Unmodelled: []string{"cgo call C.f (x.go:3)", "sync.Pool (y.go:9)"}}
	tests := []struct {
		name     string
		plan     Plan
		target   *Target
		found    Found
		kind     CoverageKind
		complete bool
		line     string
		short    string
	}{
		{"dpor ran out", Plan{Request: hunt.Request{Search: dfs, MaxDepth: 100}}, goTarget, Found{Result: hunt.Result{Search: complete}},
			Exhaustive, true, "Search: exhaustive (DFS with DPOR): every schedule explored, up to the order of independent operations.", "exhaustive"},
		{"up to the depth bound", Plan{Request: hunt.Request{Search: dfs, MaxDepth: 100}}, goTarget,
			Found{Result: hunt.Result{Search: search.Result{Complete: true, DepthLimited: true}}},
			Exhaustive, true, "every schedule up to depth 100 explored", "exhaustive"},
		{"the portfolio's dpor finished", Plan{Request: hunt.Request{Search: portfolio, MaxDepth: 100}}, goTarget, Found{Result: hunt.Result{Search: complete}},
			Exhaustive, true, "Search: exhaustive (the portfolio's DFS with DPOR finished)", "exhaustive"},
		{"constructs not modelled", Plan{Request: hunt.Request{Search: dfs, MaxDepth: 100}}, cgo, Found{Result: hunt.Result{Search: complete}},
			CompleteModelled, true, "Search: complete over the modelled operations (DFS with DPOR): every schedule explored, up to the order of " +
				"independent operations; not exhaustive: 2 constructs are not modelled (below).",
			"complete over the modelled operations (2 constructs are not modelled)"},
		{"sampled", Plan{Request: hunt.Request{Search: random, MaxDepth: 100, MaxExecutions: 12}}, goTarget, Found{Result: hunt.Result{Search: search.Result{Stats: search.Stats{Executions: 12}}}},
			Sampled, false, "Search: sampled (random walk, seed 7): 12 executions, execution limit of 12 reached; schedules not sampled may hide bugs.", ""},
		{"budget spent", Plan{Request: hunt.Request{Search: dfs, MaxDepth: 100, Budget: 30 * time.Second}}, cgo,
			Found{Result: hunt.Result{BudgetSpent: true, Search: search.Result{Cut: 3}}},
			Incomplete, false, "Search: DFS with DPOR, incomplete: budget of 30s spent (the execution under way was cut after 3 transitions).", ""},
		{"the search's share of the budget spent", Plan{Request: hunt.Request{Search: dfs, MaxDepth: 100, Budget: 3 * time.Second, Minimise: true}}, goTarget,
			Found{Result: hunt.Result{BudgetSpent: true}},
			Incomplete, false, "Search: DFS with DPOR, incomplete: budget of 3s spent (the search's share: 2.4s).", ""},
		{"the search's share of the budget spent, a step cut", Plan{Request: hunt.Request{Search: dfs, MaxDepth: 100, Budget: 3 * time.Second, Minimise: true}}, goTarget,
			Found{Result: hunt.Result{BudgetSpent: true, Search: search.Result{Cut: 1}}},
			Incomplete, false, "Search: DFS with DPOR, incomplete: budget of 3s spent (the execution under way was cut after 1 transition; the search's share: 2.4s).", ""},
		{"interrupted", Plan{Request: hunt.Request{Search: dfs, MaxDepth: 100}}, goTarget, Found{Result: hunt.Result{Interrupted: true}},
			Incomplete, false, "Search: DFS with DPOR, incomplete: interrupted.", ""},
		{"a part of a divided search", Plan{Request: hunt.Request{Search: portfolio, MaxDepth: 100, Shard: 1, Shards: 4}}, goTarget, Found{Result: hunt.Result{Search: complete}},
			Part, true, "Search: part 2 of 4 (--shard 1/4) of an exhaustive search (DFS with DPOR)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := coverageOf(&tt.plan, nil, tt.target, &tt.found)
			if c.Kind != tt.kind || c.Complete != tt.complete || !strings.Contains(c.Line, tt.line) {
				t.Errorf("%s (complete %v): %s\nwant %s (complete %v): %s", c.Kind, c.Complete, c.Line, tt.kind, tt.complete, tt.line)
			}
			if tt.short != "" && c.Short() != tt.short {
				t.Errorf("short: %q, want %q", c.Short(), tt.short)
			}
			if c.String() != c.Line || c.Scope != "goroutine operations" || !strings.HasPrefix(c.ScopeNote, "Scope: goroutine operations") {
				t.Errorf("line %q, scope %q (%q)", c.String(), c.Scope, c.ScopeNote)
			}
			if len(c.NotModelled) != len(tt.target.Unmodelled) {
				t.Errorf("not modelled: %q", c.NotModelled)
			}
		})
	}
}
