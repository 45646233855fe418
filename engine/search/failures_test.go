package search

import (
	"context"
	"math/rand/v2"
	"testing"
)

// TestMinimiseFromSearch checks that a minimisation given what the search
// that found its bug kept (Failures) ends exactly where it ends without
// it (the same schedule, outcome, original and what it proved) in fewer
// executions when that search was its proof's reducing search run to its
// end, and that it ignores what any other search kept: the plain DFS, a
// search stopped by its execution limit, another depth bound, a stateful
// search.
func TestMinimiseFromSearch(t *testing.T) {
	n := 100
	if testing.Short() {
		n = 40
	}
	saved, bugs := 0, 0
	for seed := range n {
		ex := randomProgram(rand.New(rand.NewPCG(uint64(seed), 48)))
		for _, c := range []struct {
			name   string
			st     func() Strategy
			opts   Options
			bound  int  // the minimisation's depth bound
			reused bool // the search's traces make the proof (when it completes)
		}{
			{"dpor", NewDPOR, Options{All: true}, 0, true},
			{"dpor bounded", NewDPOR, Options{All: true, MaxDepth: 60}, 60, true},
			{"dpor, another bound", NewDPOR, Options{All: true, MaxDepth: 60}, 0, false},
			{"dfs", NewDFS, Options{All: true}, 0, false},
			{"dpor stopped", NewDPOR, Options{All: true, MaxExecutions: 3}, 0, true},
		} {
			f := &Failures{}
			opts := c.opts
			opts.Failures = f
			res, err := Explore(context.Background(), ex, c.st(), opts)
			if err != nil {
				t.Fatalf("seed %d, %s: %v", seed, c.name, err)
			}
			reused := c.reused && res.Complete // (a search stopped at its limit is complete when the tree is that small)
			for _, b := range res.Bugs {
				mo := MinimiseOptions{MaxDepth: c.bound, Exhaustive: true, SearchExecutions: res.Stats.Executions}
				want, err := Minimise(context.Background(), ex, b, mo)
				if err != nil {
					t.Fatalf("seed %d, %s: %v", seed, c.name, err)
				}
				mo.Failures = f
				got, err := Minimise(context.Background(), ex, b, mo)
				if err != nil {
					t.Fatalf("seed %d, %s, with the search's traces: %v", seed, c.name, err)
				}
				bugs++
				if !got.Schedule.Equal(want.Schedule) || got.Outcome != want.Outcome || !got.Original.Equal(want.Original) ||
					got.Proven != want.Proven || got.LowerLength != want.LowerLength ||
					got.LowerPreemptions != want.LowerPreemptions || got.Unproven != want.Unproven {
					t.Errorf("seed %d, %s, %s: with the search's traces %v (proven %v, lower %d/%d, %q), without %v (%v, %d/%d, %q)",
						seed, c.name, b.Outcome.Key(), got.Schedule, got.Proven, got.LowerLength, got.LowerPreemptions, got.Unproven,
						want.Schedule, want.Proven, want.LowerLength, want.LowerPreemptions, want.Unproven)
				}
				switch {
				case reused && got.Stats.Executions >= want.Stats.Executions && want.Stats.Executions > 2:
					t.Errorf("seed %d, %s, %s: %d executions with the search's traces, %d without",
						seed, c.name, b.Outcome.Key(), got.Stats.Executions, want.Stats.Executions)
				case !reused && got.Stats.Executions != want.Stats.Executions:
					t.Errorf("seed %d, %s, %s: the search's traces were used (%d executions, %d without)",
						seed, c.name, b.Outcome.Key(), got.Stats.Executions, want.Stats.Executions)
				case reused:
					saved++
				}
			}
		}
	}
	t.Logf("%d minimisations, %d from the search's traces", bugs, saved)
	if saved == 0 {
		t.Error("no minimisation took its proof from the search's traces")
	}
}

// TestFailuresOnce checks that the search's traces of a bug make one
// proof: a second minimisation of the same bug runs its own.
func TestFailuresOnce(t *testing.T) {
	ex := philosophers(3)
	f := &Failures{}
	res, err := Explore(context.Background(), ex, NewDPOR(), Options{All: true, Failures: f})
	if err != nil || len(res.Bugs) == 0 {
		t.Fatalf("%v, %d bugs", err, len(res.Bugs))
	}
	mo := MinimiseOptions{Exhaustive: true, SearchExecutions: res.Stats.Executions, Failures: f}
	first, err := Minimise(context.Background(), ex, res.Bugs[0], mo)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Minimise(context.Background(), ex, res.Bugs[0], mo)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Proven || !second.Proven || !first.Schedule.Equal(second.Schedule) || first.Stats.Executions >= second.Stats.Executions {
		t.Errorf("first %v proven %v in %d executions, second %v proven %v in %d", first.Schedule, first.Proven,
			first.Stats.Executions, second.Schedule, second.Proven, second.Stats.Executions)
	}
}
