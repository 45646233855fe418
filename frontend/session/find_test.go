package session

import (
	"context"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
)

// Find refuses, before anything runs, a stateful search that could miss
// bugs: one whose spec is not stateful (DPOR, a bound, the portfolio), and
// one of a C program whose session does not track the heap from the
// program's start.
func TestFindRefusesUnsoundStatefulSearch(t *testing.T) {
	stateful := search.Spec{Strategy: search.StrategyDFS, Stateful: true}
	for _, tc := range []struct {
		name  string
		goTgt bool
		state bool
		find  Find
		err   string
	}{
		{"visited with DPOR", false, true, Find{Plan: Plan{Request: hunt.Request{Search: search.Spec{Strategy: search.StrategyDFS}}}, Visited: true},
			"needs a stateful spec"},
		{"livelock with the portfolio", true, false, Find{Plan: Plan{Request: hunt.Request{Search: search.Spec{}}}, Livelock: true},
			"needs a stateful spec"},
		{"graph with a bound", true, false, Find{Plan: Plan{Request: hunt.Request{Search: search.Spec{BoundBy: search.BoundDelays, Bound: 1}}}, Graph: true},
			"needs a stateful spec"},
		{"a spec refused anyway", true, false, Find{Plan: Plan{Request: hunt.Request{Search: search.Spec{Strategy: search.StrategyPCT, Stateful: true}}}, Visited: true},
			"cannot be combined with strategy pct"},
		{"C without Options.State", false, false, Find{Plan: Plan{Request: hunt.Request{Search: stateful}}, Visited: true},
			"needs a session started with Options.State"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// No process: the refusal comes before anything runs.
			s := &Session{Target: &Target{Go: tc.goTgt}, opts: Options{State: tc.state}}
			found, err := s.Find(context.Background(), &tc.find)
			if found != nil || err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("Find: %v, %v; want an error saying %q", found, err, tc.err)
			}
		})
	}
	// What goes together passes the check.
	for _, s := range []*Session{
		{Target: &Target{}, opts: Options{State: true}},
		{Target: &Target{Go: true}},
	} {
		p := &Plan{Request: hunt.Request{Search: stateful}}
		if err := s.checkStateful(p, search.Options{Visited: true, Livelock: true}); err != nil {
			t.Errorf("Go %v: %v", s.Target.Go, err)
		}
		if err := s.checkStateful(&Plan{}, search.Options{}); err != nil {
			t.Errorf("Go %v, stateless: %v", s.Target.Go, err)
		}
	}
}
