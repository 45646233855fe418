package search

import (
	"fmt"
	"testing"

	"github.com/stdbg/stdbg/model/schedule"
)

func st(th int) schedule.Step { return schedule.Step{Thread: th, Choice: schedule.NoChoice} }

func TestFindLivelock(t *testing.T) {
	for _, tc := range []struct {
		name  string
		nodes []Node
		want  string // the lasso, "" for none
	}{
		{
			// Two threads spin in turn: 0 -1-> 1 -2-> 0.
			name: "fair cycle",
			nodes: []Node{
				{Enabled: []int{1, 2}, Edges: []Edge{{Step: st(1), To: 1}}},
				{Enabled: []int{1, 2}, Edges: []Edge{{Step: st(2), To: 0}}},
			},
			want: "(1;2)*",
		},
		{
			// Thread 1 spins on its own while thread 2, enabled, could
			// end the spin: weak fairness rules the cycle out.
			name: "unfair self-loop",
			nodes: []Node{
				{Enabled: []int{1, 2}, Edges: []Edge{{Step: st(1), To: 0}, {Step: st(2), To: 1}}},
				{End: &Outcome{Kind: Exited}},
			},
		},
		{
			// The same spin is fair when thread 2 is blocked in it.
			name: "spin while the other is blocked",
			nodes: []Node{
				{Enabled: []int{1}, Edges: []Edge{{Step: st(1), To: 1}}},
				{Enabled: []int{1}, Edges: []Edge{{Step: st(1), To: 2}}},
				{Enabled: []int{1}, Edges: []Edge{{Step: st(1), To: 1}}},
			},
			want: "1 (1;1)*",
		},
		{
			// A cycle with a progress transition is no livelock.
			name: "progress",
			nodes: []Node{
				{Enabled: []int{1, 2}, Edges: []Edge{{Step: st(1), To: 1}}},
				{Enabled: []int{1, 2}, Edges: []Edge{{Step: st(2), To: 0, Progress: true}}},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &Graph{Nodes: tc.nodes}
			for i := range g.Nodes {
				g.Nodes[i].Depth = i
				for j := range g.Nodes[i].Edges {
					g.Nodes[i].Edges[j].Op = "sched_yield"
				}
			}
			l := FindLivelock(g)
			got := ""
			if l != nil {
				got = LassoString(l.Stem, l.Cycle)
			}
			if got != tc.want {
				t.Fatalf("FindLivelock = %q, want %q", got, tc.want)
			}
			if l != nil {
				if o := l.Outcome(); o.Kind != Livelock || o.Where == "" {
					t.Errorf("outcome %+v", o)
				}
			}
		})
	}
}

func TestParseLasso(t *testing.T) {
	for _, tc := range []struct{ in, stem, cycle string }{
		{"1;1;2 (1;2)*", "1;1;2", "1;2"},
		{"Path = 1;2:1 (3)*", "1;2:1", "3"},
		{"(1;2)*", "", "1;2"},
		{"1;2 ()*", "1;2", ""},
		{"1;2", "1;2", "-"},
	} {
		stem, cycle, err := ParseLasso(tc.in)
		if err != nil {
			t.Errorf("ParseLasso(%q): %v", tc.in, err)
			continue
		}
		c := "-"
		if cycle != nil {
			c = cycle.String()
		}
		if stem.String() != tc.stem || c != tc.cycle {
			t.Errorf("ParseLasso(%q) = %q, %q; want %q, %q", tc.in, stem, c, tc.stem, tc.cycle)
		}
		if cycle != nil && LassoString(stem, cycle) != tc.in && tc.in[0] != 'P' {
			t.Errorf("LassoString does not round-trip %q: %q", tc.in, LassoString(stem, cycle))
		}
	}
	for _, bad := range []string{"1;2 (3", "1;2 (x)*", "(1;2)"} {
		if _, _, err := ParseLasso(bad); err == nil {
			t.Errorf("ParseLasso(%q) accepted", bad)
		}
	}
}

func ExampleFindLivelock() {
	// Two threads that yield to each other forever: the state graph has a
	// cycle in which both run and neither marks progress.
	yield := func(th, to int) Edge {
		return Edge{Step: schedule.Step{Thread: th, Choice: schedule.NoChoice}, To: to, Op: "sched_yield"}
	}
	g := &Graph{Nodes: []Node{
		{Enabled: []int{1, 2}, Edges: []Edge{yield(1, 1)}},
		{Enabled: []int{1, 2}, Edges: []Edge{yield(2, 0)}},
	}}
	l := FindLivelock(g)
	fmt.Println(LassoString(l.Stem, l.Cycle))
	fmt.Println(l.Outcome().Message)
	// Output:
	// (1;2)*
	// no progress: threads 1, 2 can run forever in a cycle of 2 transitions without progress, every thread enabled throughout it being scheduled in it
}
