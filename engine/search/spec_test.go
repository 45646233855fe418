package search_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
)

func TestSpec(t *testing.T) {
	tests := []struct {
		spec      search.Spec
		strategy  string // the type New returns
		describe  string
		name      string
		splits    bool
		note, err string
	}{
		{spec: search.Spec{}, strategy: "*search.Portfolio",
			describe: "portfolio of DPOR, PCT (depth 3), delay bounding (at most 2 delays) and a random walk, seed 0", name: "portfolio"},
		{spec: search.Spec{Strategy: "portfolio", Reduction: "none", PCTDepth: 2, Seed: 5}, strategy: "*search.Portfolio",
			describe: "portfolio of DFS, PCT (depth 2), delay bounding (at most 2 delays) and a random walk, seed 5", name: "portfolio"},
		{spec: search.Spec{Strategy: "portfolio", Sampling: true, Seed: 5}, strategy: "*search.Portfolio",
			describe: "portfolio without its exhaustive member: PCT (depth 3), delay bounding (at most 2 delays) and a random walk, seed 5", name: "portfolio"},
		{spec: search.Spec{Strategy: "dfs"}, strategy: "*search.dpor", describe: "DFS with DPOR", name: "dfs", splits: true},
		{spec: search.Spec{Reduction: "dpor"}, strategy: "*search.dpor", describe: "DFS with DPOR", name: "dfs", splits: true},
		{spec: search.Spec{Reduction: "none"}, strategy: "*search.dfs", describe: "DFS", name: "dfs", splits: true},
		{spec: search.Spec{BoundBy: "preemptions", Bound: 2}, strategy: "*search.PreemptionBounding",
			describe: "DFS bounded to 2 preemptions", name: "dfs (at most 2 preemptions)"},
		{spec: search.Spec{BoundBy: "delays", Bound: 1, Reduction: "dpor"}, strategy: "*search.PreemptionBounding",
			describe: "DFS bounded to 1 delay", name: "dfs (at most 1 delay)", note: "no DPOR"},
		{spec: search.Spec{Stateful: true}, strategy: "*search.dfs", describe: "DFS", name: "dfs"},
		{spec: search.Spec{Stateful: true, Reduction: "dpor"}, strategy: "*search.dfs", describe: "DFS", name: "dfs",
			note: "DPOR is not sound with a visited set"},
		{spec: search.Spec{Strategy: "random", Seed: 7}, strategy: "*search.randomWalk", describe: "random walk, seed 7", name: "random"},
		{spec: search.Spec{Strategy: "pct", Seed: 7}, strategy: "*search.pct", describe: "PCT with bug depth 3, seed 7", name: "pct (depth 3)"},
		{spec: search.Spec{Strategy: "bfs"}, err: `unknown strategy "bfs"`},
		{spec: search.Spec{Reduction: "sleep"}, err: `unknown reduction "sleep"`},
		{spec: search.Spec{BoundBy: "steps"}, err: `unknown bound "steps"`},
		{spec: search.Spec{BoundBy: "preemptions", Bound: -1}, err: "at least 0"},
		{spec: search.Spec{Strategy: "pct", BoundBy: "preemptions"}, err: "bounds the dfs strategy, not pct"},
		{spec: search.Spec{Strategy: "random", Reduction: "dpor"}, err: "dfs's, not random's"},
		{spec: search.Spec{Strategy: "random", Stateful: true}, err: "a stateful search needs the full state graph: it cannot be combined with strategy random"},
		{spec: search.Spec{Strategy: "pct", Reduction: "dpor", Stateful: true}, err: "cannot be combined with strategy pct"},
		{spec: search.Spec{Strategy: "random", BoundBy: "delays", Stateful: true}, err: "cannot be combined with strategy random"},
		{spec: search.Spec{Strategy: "pct", PCTDepth: -2}, err: "at least 1"},
		{spec: search.Spec{Stateful: true, BoundBy: "delays"}, err: "a stateful search cannot be bounded by delays"},
		{spec: search.Spec{Strategy: "portfolio", BoundBy: "delays", Bound: 2}, err: "bounds the dfs strategy, not the portfolio"},
		{spec: search.Spec{Strategy: "portfolio", Stateful: true}, err: "cannot be combined with strategy portfolio (use strategy dfs)"},
		{spec: search.Spec{Strategy: "portfolio", Reduction: "sleep"}, err: `unknown reduction "sleep"`},
		{spec: search.Spec{Strategy: "portfolio", PCTDepth: -1}, err: "at least 1"},
		{spec: search.Spec{Strategy: "pct", Sampling: true}, err: "only a portfolio can leave its exhaustive member out"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%+v", tt.spec), func(t *testing.T) {
			_, notes, err := tt.spec.Normal()
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Normal: err %v, want %q", err, tt.err)
				}
				if _, err := tt.spec.New(); err == nil {
					t.Error("New accepted what Normal refused")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(notes, "; "); !strings.Contains(got, tt.note) || tt.note == "" && got != "" {
				t.Errorf("notes %q, want %q", got, tt.note)
			}
			st, err := tt.spec.New()
			if err != nil {
				t.Fatal(err)
			}
			if got := reflect.TypeOf(st).String(); got != tt.strategy {
				t.Errorf("New: %s, want %s", got, tt.strategy)
			}
			if got := tt.spec.Describe(); got != tt.describe {
				t.Errorf("Describe: %q, want %q", got, tt.describe)
			}
			if got := tt.spec.Name(); got != tt.name {
				t.Errorf("Name: %q, want %q", got, tt.name)
			}
			n, _, _ := tt.spec.Normal()
			if got := n.Splittable(); got != tt.splits {
				t.Errorf("Splittable: %v, want %v", got, tt.splits)
			}
		})
	}
}

// A stateful search (a visited set, the state graph, livelock detection)
// is sound only with a spec that says so: the plain dfs.
func TestSpecCheckOptions(t *testing.T) {
	for _, tt := range []struct {
		name string
		spec search.Spec
		opts search.Options
		err  string
	}{
		{"stateless default", search.Spec{}, search.Options{}, ""},
		{"stateless dpor", search.Spec{Strategy: "dfs"}, search.Options{All: true}, ""},
		{"visited, stateful spec", search.Spec{Stateful: true}, search.Options{Visited: true}, ""},
		{"livelock, stateful spec asking dpor", search.Spec{Stateful: true, Reduction: "dpor"}, search.Options{Livelock: true}, ""},
		{"stateful spec, no visited set", search.Spec{Stateful: true}, search.Options{}, ""},
		{"visited with dpor", search.Spec{Strategy: "dfs"}, search.Options{Visited: true}, "DFS with DPOR with a visited set would miss bugs"},
		{"graph with the portfolio", search.Spec{}, search.Options{Graph: true}, "needs a stateful spec"},
		{"livelock with a bound", search.Spec{BoundBy: "preemptions", Bound: 1}, search.Options{Livelock: true}, "needs a stateful spec"},
		{"visited with pct", search.Spec{Strategy: "pct"}, search.Options{Visited: true}, "needs a stateful spec"},
		{"a spec refused anyway", search.Spec{Strategy: "random", Stateful: true}, search.Options{Visited: true}, "cannot be combined with strategy random"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.spec.CheckOptions(tt.opts)
			if tt.err == "" {
				if err != nil {
					t.Fatalf("CheckOptions: %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("CheckOptions: %v, want an error saying %q", err, tt.err)
			}
		})
	}
}

// A search is named once, in one vocabulary, and built from its name.
func ExampleSpec() {
	for _, s := range []search.Spec{
		{},
		{Strategy: search.StrategyDFS},
		{BoundBy: search.BoundPreemptions, Bound: 2},
		{Strategy: search.StrategyPCT, Seed: 42},
		{Strategy: search.StrategyRandom, Stateful: true},
	} {
		if err := s.Check(); err != nil {
			fmt.Println("refused:", err)
			continue
		}
		fmt.Println(s.Describe())
	}
	// Output:
	// portfolio of DPOR, PCT (depth 3), delay bounding (at most 2 delays) and a random walk, seed 0
	// DFS with DPOR
	// DFS bounded to 2 preemptions
	// PCT with bug depth 3, seed 42
	// refused: a stateful search needs the full state graph: it cannot be combined with strategy random (use strategy dfs)
}

// A visited set goes with a stateful spec only: with DPOR it would cut
// executions at states whose continuations DPOR never planned.
func ExampleSpec_CheckOptions() {
	opts := search.Options{Visited: true}
	for _, s := range []search.Spec{
		{Strategy: search.StrategyDFS},
		{Strategy: search.StrategyDFS, Stateful: true},
	} {
		if err := s.CheckOptions(opts); err != nil {
			fmt.Println("refused:", err)
			continue
		}
		n, _, _ := s.Normal()
		fmt.Println("runs:", n.Describe())
	}
	// Output:
	// refused: a stateful search (a visited set, the state graph or livelock detection) needs a stateful spec: DFS with DPOR with a visited set would miss bugs
	// runs: DFS
}

// The portfolio's members, and what its parts run when it is divided.
func TestSpecMembers(t *testing.T) {
	spec := search.Spec{Seed: 7}
	var names []string
	for _, m := range spec.Members() {
		names = append(names, m.Name)
	}
	want := "DPOR, PCT (depth 3, seed 7), delay bounding (at most 2 delays), random walk (seed 8)"
	if got := strings.Join(names, ", "); got != want {
		t.Errorf("members %s, want %s", got, want)
	}
	if ms := spec.Members(); !ms[0].Decides || ms[1].Decides || ms[0].Share != ms[1].Share*2 {
		t.Errorf("members %+v", ms)
	}
	if x := spec.Exhaustive(); x.Describe() != "DFS with DPOR" || !x.Splittable() {
		t.Errorf("exhaustive member %+v", x)
	}
	st, err := spec.WithoutExhaustive().New()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(st.(*search.Portfolio).Members(), ", "); got != "PCT (depth 3, seed 7), delay bounding (at most 2 delays), random walk (seed 8)" {
		t.Errorf("without its exhaustive member: %s", got)
	}
	if (search.Spec{Strategy: "dfs"}).Members() != nil {
		t.Error("a dfs has members")
	}
}
