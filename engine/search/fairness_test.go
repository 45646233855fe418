package search

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stdbg/stdbg/model/schedule"
)

func TestFindLivelockStrong(t *testing.T) {
	for _, tc := range []struct {
		name       string
		nodes      []Node
		weak, want string // the lassos under weak and strong fairness, "" for none
	}{
		{
			// Threads 1 and 2 take a lock in turn (states 0-3); thread
			// 3 waits for it, enabled only when it is free (states 0
			// and 2), and would end the loop. Weak fairness lets thread
			// 3 starve; strong fairness does not.
			name: "lock released again and again",
			nodes: []Node{
				{Enabled: []int{1, 2, 3}, Edges: []Edge{{Step: st(1), To: 1}, {Step: st(3), To: 4}}},
				{Enabled: []int{1}, Edges: []Edge{{Step: st(1), To: 2}}},
				{Enabled: []int{1, 2, 3}, Edges: []Edge{{Step: st(2), To: 3}, {Step: st(3), To: 4}}},
				{Enabled: []int{2}, Edges: []Edge{{Step: st(2), To: 0}}},
				{End: &Outcome{Kind: Exited}},
			},
			weak: "(1;1;2;2)*",
		},
		{
			// Thread 1 holds the lock and yields for ever; thread 3
			// waits for it and is never enabled: a livelock under both.
			name: "lock never released",
			nodes: []Node{
				{Enabled: []int{1}, Edges: []Edge{{Step: st(1), To: 1}}},
				{Enabled: []int{1}, Edges: []Edge{{Step: st(1), To: 0}}},
			},
			weak: "(1;1)*",
			want: "(1;1)*",
		},
		{
			// A fair part inside an unfair component: from state 0,
			// thread 2 (enabled there, never scheduled in the
			// component) must be avoided: the cycle 1 -> 2 -> 1 is
			// strongly fair.
			name: "fair part of a component",
			nodes: []Node{
				{Enabled: []int{1, 2}, Edges: []Edge{{Step: st(1), To: 1}, {Step: st(2), To: 3}}},
				{Enabled: []int{1}, Edges: []Edge{{Step: st(1), To: 2}}},
				{Enabled: []int{1}, Edges: []Edge{{Step: schedule.Step{Thread: 1, Choice: 0}, To: 1}, {Step: schedule.Step{Thread: 1, Choice: 1}, To: 0}}},
				{End: &Outcome{Kind: Exited}},
			},
			weak: "(1;1;1:0;1;1:1)*",
			want: "1 (1;1:0)*",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &Graph{Nodes: tc.nodes}
			for i := range g.Nodes {
				g.Nodes[i].Depth = i
				for j := range g.Nodes[i].Edges {
					g.Nodes[i].Edges[j].Op = "op"
				}
			}
			for _, f := range []Fairness{WeakFairness, StrongFairness} {
				want := map[Fairness]string{WeakFairness: tc.weak, StrongFairness: tc.want}[f]
				l := FindLivelockFair(g, f)
				got := ""
				if l != nil {
					got = LassoString(l.Stem, l.Cycle)
					checkFairLasso(t, g, l, f)
				}
				if got != want {
					t.Errorf("%s: FindLivelockFair = %q, want %q", f, got, want)
				}
			}
		})
	}
}

// checkFairLasso checks that l is a run of g whose cycle comes back to its
// start and is fair under f.
func checkFairLasso(t *testing.T, g *Graph, l *Lasso, f Fairness) {
	t.Helper()
	cur, steps := 0, 0
	walk := func(s schedule.Step) {
		for _, e := range g.Nodes[cur].Edges {
			if e.Step == s {
				if e.Progress && cur >= 0 && len(l.Cycle) > 0 && steps >= len(l.Stem) {
					t.Fatalf("lasso %s: the cycle makes progress", LassoString(l.Stem, l.Cycle))
				}
				steps++
				cur = e.To
				return
			}
		}
		t.Fatalf("lasso %s: no step %v from state %d", LassoString(l.Stem, l.Cycle), s, cur)
	}
	for _, s := range l.Stem {
		walk(s)
	}
	start := cur
	somewhere, everywhere := map[int]bool{}, map[int]int{}
	ran := map[int]bool{}
	for _, s := range l.Cycle {
		for _, th := range g.Nodes[cur].Enabled {
			somewhere[th] = true
			everywhere[th]++
		}
		walk(s)
		ran[s.Thread] = true
	}
	if cur != start || len(l.Cycle) == 0 {
		t.Fatalf("lasso %s: the cycle does not come back to state %d", LassoString(l.Stem, l.Cycle), start)
	}
	for th := range somewhere {
		if ran[th] {
			continue
		}
		if f == StrongFairness || everywhere[th] == len(l.Cycle) {
			t.Fatalf("lasso %s: thread %d is enabled in the cycle and never runs (%s)", LassoString(l.Stem, l.Cycle), th, f)
		}
	}
}

// TestStrongFairnessBruteForce compares FindLivelockFair with strong
// fairness against a brute force on random graphs: a strongly fair cycle
// exists exactly when some set of states induces a strongly connected
// subgraph with a transition in which every thread enabled in one of the
// states takes a transition.
func TestStrongFairnessBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for k := range 2000 {
		g := randomLivelockGraph(r)
		want := bruteStrongCycle(g)
		l := FindLivelockFair(g, StrongFairness)
		if (l != nil) != want {
			t.Fatalf("case %d: FindLivelockFair found %v, brute force %v, on %+v", k, l != nil, want, g.Nodes)
		}
		if l != nil {
			checkFairLasso(t, g, l, StrongFairness)
		}
		// (FindLivelock looks at the first-reached component only, which
		// in a real graph, all of whose states are reachable, is enough.)
		if weak := FindLivelock(g); l != nil && weak == nil && allReachable(g) {
			t.Fatalf("case %d: a strongly fair cycle %s and no weakly fair one, on %+v", k, LassoString(l.Stem, l.Cycle), g.Nodes)
		}
	}
}

// randomLivelockGraph is a random state graph of up to three threads over
// six states: each enabled thread has one or two transitions; some are
// progress.
func randomLivelockGraph(r *rand.Rand) *Graph {
	n := 1 + r.IntN(6)
	g := &Graph{}
	for i := range n {
		node := Node{Depth: i}
		for th := 1; th <= 3; th++ {
			if r.IntN(3) == 0 {
				continue
			}
			node.Enabled = append(node.Enabled, th)
			for range 1 + r.IntN(2) {
				e := Edge{Step: schedule.Step{Thread: th, Choice: schedule.NoChoice}, To: r.IntN(n), Progress: r.IntN(5) == 0, Op: "op"}
				if !slices.ContainsFunc(node.Edges, func(x Edge) bool { return x.Step == e.Step }) {
					node.Edges = append(node.Edges, e)
				} else {
					e.Step.Choice = len(node.Edges)
					node.Edges = append(node.Edges, e)
				}
			}
		}
		if len(node.Enabled) == 0 {
			node.End = &Outcome{Kind: Exited}
		}
		g.Nodes = append(g.Nodes, node)
	}
	return g
}

func bruteStrongCycle(g *Graph) bool {
	n := len(g.Nodes)
	reach := func(set uint, from int) uint {
		seen := uint(1) << from
		stack := []int{from}
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, e := range g.Nodes[v].Edges {
				if e.Progress || set&(1<<e.To) == 0 || seen&(1<<e.To) != 0 {
					continue
				}
				seen |= 1 << e.To
				stack = append(stack, e.To)
			}
		}
		return seen
	}
	reachable := uint(1)
	for changed := true; changed; {
		changed = false
		for v := range n {
			if reachable&(1<<v) == 0 {
				continue
			}
			for _, e := range g.Nodes[v].Edges {
				if reachable&(1<<e.To) == 0 {
					reachable |= 1 << e.To
					changed = true
				}
			}
		}
	}
	for set := uint(1); set < 1<<n; set++ {
		if set&reachable != set {
			continue
		}
		connected, edge := true, false
		for v := range n {
			if set&(1<<v) == 0 {
				continue
			}
			if reach(set, v)&set != set {
				connected = false
				break
			}
		}
		if !connected {
			continue
		}
		enabled, ran := map[int]bool{}, map[int]bool{}
		for v := range n {
			if set&(1<<v) == 0 {
				continue
			}
			for _, th := range g.Nodes[v].Enabled {
				enabled[th] = true
			}
			for _, e := range g.Nodes[v].Edges {
				if !e.Progress && set&(1<<e.To) != 0 {
					ran[e.Step.Thread], edge = true, true
				}
			}
		}
		if !edge {
			continue
		}
		fair := true
		for th := range enabled {
			if !ran[th] {
				fair = false
			}
		}
		if fair {
			return true
		}
	}
	return false
}

// allReachable reports whether every state of g is reachable from state
// 0, and sets each state's depth to its distance from it.
func allReachable(g *Graph) bool {
	depth := map[int]int{0: 0}
	queue := []int{0}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, e := range g.Nodes[v].Edges {
			if _, ok := depth[e.To]; !ok {
				depth[e.To] = depth[v] + 1
				queue = append(queue, e.To)
			}
		}
	}
	for v, d := range depth {
		g.Nodes[v].Depth = d
	}
	return len(depth) == len(g.Nodes)
}

func ExampleFindLivelockFair() {
	// Thread 1 takes a lock, yields, releases it, again and again, making
	// no progress; thread 2 waits for the lock (enabled only in state 0,
	// where the lock is free) and, once it has it, ends the loop.
	step := func(th int) schedule.Step { return schedule.Step{Thread: th, Choice: schedule.NoChoice} }
	g := &Graph{Nodes: []Node{
		{Enabled: []int{1, 2}, Edges: []Edge{{Step: step(1), To: 1, Op: "pthread_mutex_lock"}, {Step: step(2), To: 3, Op: "pthread_mutex_lock"}}},
		{Enabled: []int{1}, Edges: []Edge{{Step: step(1), To: 2, Op: "sched_yield"}}},
		{Enabled: []int{1}, Edges: []Edge{{Step: step(1), To: 0, Op: "pthread_mutex_unlock"}}},
		{End: &Outcome{Kind: Exited}},
	}}
	for _, f := range []Fairness{WeakFairness, StrongFairness} {
		if l := FindLivelockFair(g, f); l != nil {
			fmt.Printf("%s: %s\n", f, l.OutcomeFair(f).Message)
		} else {
			fmt.Printf("%s: no livelock\n", f)
		}
	}
	// Output:
	// weakly fair: no progress: thread 1 can run forever in a cycle of 3 transitions without progress, every thread enabled throughout it being scheduled in it
	// strongly fair: no livelock
}
