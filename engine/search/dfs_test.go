package search

import (
	"context"
	"slices"
	"testing"

	"github.com/stdbg/stdbg/model/schedule"
)

// recorder wraps a strategy and records the schedule of every execution.
type recorder struct {
	Strategy
	runs []string
}

func (r *recorder) End(rep *Report) {
	s := make(schedule.Schedule, len(rep.Trace))
	for i, ev := range rep.Trace {
		s[i] = ev.Step
	}
	r.runs = append(r.runs, s.String())
	r.Strategy.End(rep)
}

func binomial(n, k int) int64 {
	r := int64(1)
	for i := 1; i <= k; i++ {
		r = r * int64(n-k+i) / int64(i)
	}
	return r
}

// treeNodes is the number of nodes of the interleaving tree of n threads
// of k independent steps each: one per vector c of steps done (c[i] <= k)
// and order of those steps, the multinomial (sum c)! / prod c[i]!.
func treeNodes(n, k int) int64 {
	var walk func(i, done int) int64
	walk = func(i, done int) int64 {
		if i == n {
			return 1
		}
		var sum int64
		for c := 0; c <= k; c++ {
			sum += binomial(done+c, c) * walk(i+1, done+c)
		}
		return sum
	}
	return walk(0, 0)
}

func TestDFSCounts(t *testing.T) {
	tests := []struct {
		name        string
		ex          *fakeExecutor
		executions  int64
		transitions int64
		states      int64
	}{
		{"2x1 yields", yielders(2, 1), 2, 4, treeNodes(2, 1)},
		{"2x2 yields", yielders(2, 2), 6, 24, treeNodes(2, 2)},
		{"2x3 yields", yielders(2, 3), 20, 120, treeNodes(2, 3)},
		{"2x4 yields", yielders(2, 4), 70, 560, treeNodes(2, 4)},
		{"2x6 yields", yielders(2, 6), binomial(12, 6), binomial(12, 6) * 12, treeNodes(2, 6)},
		{"3x1 yields", yielders(3, 1), 6, 18, 1 + 3 + 6 + 6},
		{"3x1 yields, formula", yielders(3, 1), 6, 18, treeNodes(3, 1)},
		{"3x2 yields", yielders(3, 2), 90, 540, treeNodes(3, 2)}, // 6!/(2!2!2!)
		{"1 thread", yielders(1, 5), 1, 5, 6},
		{"4x2 yields", yielders(4, 2), 2520, 2520 * 8, treeNodes(4, 2)},
		{"choices 3x2", newFake(1, []fop{choose(0, 3), choose(1, 2)}), 6, 12, 1 + 3 + 6},
		{"choice and thread", newFake(2, []fop{choose(0, 2)}, []fop{yield()}), 4, 8, 1 + 3 + 4},
		{"create", newFake(1, []fop{create(1), yield()}, []fop{yield()}), 2, 6, 1 + 1 + 2 + 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Explore(context.Background(), tt.ex, NewDFS(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			s := res.Stats
			if s.Executions != tt.executions || s.Transitions != tt.transitions ||
				s.States != tt.states {
				t.Errorf("executions/transitions/states = %d/%d/%d, want %d/%d/%d",
					s.Executions, s.Transitions, s.States, tt.executions, tt.transitions, tt.states)
			}
			if !res.Complete || res.DepthLimited || len(res.Bugs) != 0 || s.MaxDepthHit != 0 {
				t.Errorf("complete=%v depthLimited=%v bugs=%v maxDepthHit=%d, want a complete clean search",
					res.Complete, res.DepthLimited, res.Bugs, s.MaxDepthHit)
			}
			if tt.ex.open() != 0 {
				t.Errorf("%d executions left open", tt.ex.open())
			}
		})
	}
}

// TestDFSOrder checks the order of alternatives: the running thread first,
// then the others by id, data values in increasing order.
func TestDFSOrder(t *testing.T) {
	tests := []struct {
		name string
		ex   *fakeExecutor
		want []string
	}{
		{"keep running", yielders(2, 2), []string{
			"1;1;2;2", "1;2;2;1", "1;2;1;2", "2;2;1;1", "2;1;1;2", "2;1;2;1",
		}},
		{"three threads", yielders(3, 1), []string{
			"1;2;3", "1;3;2", "2;1;3", "2;3;1", "3;1;2", "3;2;1",
		}},
		{"values", newFake(2, []fop{choose(0, 2)}, []fop{yield()}), []string{
			"1:0;2", "1:1;2", "2;1:0", "2;1:1",
		}},
		{"finished thread", newFake(1, []fop{create(1), create(2)}, []fop{yield()}, []fop{yield()}), []string{
			// Once thread 1 has finished, lowest id first.
			"1;1;2;3", "1;1;3;2", "1;2;1;3",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{Strategy: NewDFS()}
			if _, err := Explore(context.Background(), tt.ex, rec, Options{}); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rec.runs, tt.want) {
				t.Errorf("executions\n%q\nwant\n%q", rec.runs, tt.want)
			}
		})
	}
}

// TestFirstBug checks which counterexample DFS finds first: the order of
// alternatives keeps the running thread going, so it has few context
// switches.
func TestFirstBug(t *testing.T) {
	tests := []struct {
		name       string
		ex         *fakeExecutor
		kind       Kind
		where      string
		schedule   string
		executions int64
	}{
		{"embrace", embrace(), Deadlock, "1:mutex-lock(0x2) 2:mutex-lock(0x1)", "1;1;2", 0},
		{"choice", chooser(), AssertionFailure, "v != 2", "1:2;1", 3},
		// Thread 1 reads the counter thread 2 increments twice. Bug B
		// needs one preemption (1;2;2;1;1), bug A two (1;2;1;2;1); a
		// lowest-id-first order would find A first.
		{"fewest switches", newFake(2,
			[]fop{yield(), do(func(v *fakeVars) { v[1] = v[0] }), check(func(v *fakeVars) string {
				switch {
				case v[1] == 2:
					return "B"
				case v[1] == 1 && v[0] == 2:
					return "A"
				}
				return ""
			})},
			[]fop{do(func(v *fakeVars) { v[0]++ }), do(func(v *fakeVars) { v[0]++ })},
		), AssertionFailure, "B", "1;2;2;1;1", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Explore(context.Background(), tt.ex, NewDFS(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Bugs) != 1 {
				t.Fatalf("bugs = %v, want one", res.Bugs)
			}
			b := res.Bugs[0]
			if b.Outcome.Kind != tt.kind || b.Outcome.Where != tt.where || b.Schedule.String() != tt.schedule {
				t.Errorf("bug = %v at %q with schedule %v, want %v at %q with %v",
					b.Outcome.Kind, b.Outcome.Where, b.Schedule, tt.kind, tt.where, tt.schedule)
			}
			if b.Outcome.Step != len(b.Schedule) {
				t.Errorf("outcome step %d, schedule length %d", b.Outcome.Step, len(b.Schedule))
			}
			if res.Complete {
				t.Error("complete after stopping at the first bug")
			}
			if tt.executions > 0 && res.Stats.Executions != tt.executions {
				t.Errorf("found after %d executions, want %d", res.Stats.Executions, tt.executions)
			}
			if tt.ex.open() != 0 {
				t.Errorf("%d executions left open", tt.ex.open())
			}
		})
	}
}

// TestDFSReuse checks that Init resets a strategy for a second exploration.
func TestDFSReuse(t *testing.T) {
	st := NewDFS()
	for i := range 2 {
		res, err := Explore(context.Background(), yielders(2, 2), st, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stats.Executions != 6 || !res.Complete {
			t.Errorf("run %d: %d executions, complete %v", i, res.Stats.Executions, res.Complete)
		}
	}
	// Also after an exploration stopped in the middle.
	if _, err := Explore(context.Background(), embrace(), st, Options{}); err != nil {
		t.Fatal(err)
	}
	res, err := Explore(context.Background(), yielders(2, 3), st, Options{})
	if err != nil || res.Stats.Executions != 20 {
		t.Errorf("after a stopped search: %d executions, %v", res.Stats.Executions, err)
	}
}
