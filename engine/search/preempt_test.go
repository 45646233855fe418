package search

import (
	"context"
	"slices"
	"testing"

	"github.com/stdbg/stdbg/model/schedule"
)

// replayCost replays a schedule on a fresh execution of ex and sums, over
// its steps, what cost says each step costs given the threads at its point
// and the thread of the step before (0 at the first).
func replayCost(t *testing.T, ex Executor, text string, cost func(threads []Thread, prev int, st schedule.Step) int) int {
	t.Helper()
	s, err := schedule.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	e, err := ex.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	n, prev := 0, 0
	for _, st := range s {
		n += cost(e.Threads(), prev, st)
		if err := e.Step(st); err != nil {
			t.Fatalf("replaying %s: %v", text, err)
		}
		prev = st.Thread
	}
	return n
}

// preemptionsOf counts the preemptions of a schedule: steps that switch
// away from a thread that could go on.
func preemptionsOf(t *testing.T, ex Executor, text string) int {
	t.Helper()
	return replayCost(t, ex, text, func(threads []Thread, prev int, st schedule.Step) int {
		for _, th := range threads {
			if st.Thread != prev && th.ID == prev && th.Enabled {
				return 1
			}
		}
		return 0
	})
}

// locker: two threads each lock a mutex around two yields; blocking on
// the lock makes some switches free.
func locker() *fakeExecutor {
	body := []fop{lock(1), yield(), unlock(1), yield()}
	return newFake(2, body, body)
}

// boundedPrograms are the programs on which a bounded strategy must
// explore each schedule exactly once, by rounds.
var boundedPrograms = []struct {
	name string
	ex   func() *fakeExecutor
}{
	{"2x3 yields", func() *fakeExecutor { return yielders(2, 3) }},
	{"3x2 yields", func() *fakeExecutor { return yielders(3, 2) }},
	{"locks", locker},
	{"embrace", embrace},
	{"choice and thread", func() *fakeExecutor { return newFake(2, []fop{choose(0, 2), yield()}, []fop{yield(), yield()}) }},
	{"create", func() *fakeExecutor { return newFake(1, []fop{create(1), yield(), yield()}, []fop{yield(), yield()}) }},
}

// checkRounds runs a bounded strategy with a bound no schedule reaches on
// each of boundedPrograms and checks that it explores every schedule DFS
// does, each once, in rounds of increasing cost (costOf, a schedule's
// preemptions or delays), each round complete with as many executions as
// brute force counts at its cost.
func checkRounds(t *testing.T, strategy func() *PreemptionBounding, costOf func(*testing.T, Executor, string) int) {
	for _, tt := range boundedPrograms {
		t.Run(tt.name, func(t *testing.T) {
			all := &recorder{Strategy: NewDFS()}
			if _, err := Explore(context.Background(), tt.ex(), all, Options{All: true}); err != nil {
				t.Fatal(err)
			}
			perBound := map[int]int64{}
			for _, s := range all.runs {
				perBound[costOf(t, tt.ex(), s)]++
			}
			pb := strategy()
			rec := &recorder{Strategy: pb}
			res, err := Explore(context.Background(), tt.ex(), rec, Options{All: true})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Complete || !pb.Saturated() {
				t.Errorf("complete %v, saturated %v, want both", res.Complete, pb.Saturated())
			}
			got, want := slices.Clone(rec.runs), slices.Clone(all.runs)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("schedules\n%q\nwant each of\n%q\nonce", got, want)
			}
			last := 0
			for _, s := range rec.runs {
				n := costOf(t, tt.ex(), s)
				if n < last {
					t.Errorf("%s (cost %d) explored after a schedule of cost %d", s, n, last)
				}
				last = n
			}
			bounds := pb.Bounds()
			if len(bounds) != len(perBound) {
				t.Errorf("%d rounds, want %d: %+v, brute force %v", len(bounds), len(perBound), bounds, perBound)
			}
			for c, b := range bounds {
				if b.Preemptions != c || !b.Complete || b.Executions != perBound[c] {
					t.Errorf("round %d: %+v, want %d executions, complete", c, b, perBound[c])
				}
			}
		})
	}
}

func TestPreemptionBoundingExploresEachScheduleOnce(t *testing.T) {
	checkRounds(t, func() *PreemptionBounding { return NewPreemptionBounding(100) }, preemptionsOf)
}

func TestPreemptionBound(t *testing.T) {
	// 2 threads of 3 yields: 2 schedules without preemption, 4 with one
	// (switch once in the middle of a thread, the other runs to its end).
	pb := NewPreemptionBounding(1)
	res, err := Explore(context.Background(), yielders(2, 3), pb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete || pb.Saturated() {
		t.Errorf("complete %v saturated %v, want complete within the bound only", res.Complete, pb.Saturated())
	}
	want := []Bound{{Preemptions: 0, Executions: 2, Complete: true}, {Preemptions: 1, Executions: 4, Complete: true}}
	if got := pb.Bounds(); !slices.Equal(got, want) {
		t.Errorf("bounds %+v, want %+v", got, want)
	}
	if res.Stats.Executions != 6 {
		t.Errorf("%d executions, want 6", res.Stats.Executions)
	}

	// The deadly embrace needs one preemption.
	for _, tc := range []struct {
		k    int
		bugs int
		path string
	}{{0, 0, ""}, {1, 1, "1;1;2"}, {3, 1, "1;1;2"}} {
		pb := NewPreemptionBounding(tc.k)
		res, err := Explore(context.Background(), embrace(), pb, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Bugs) != tc.bugs {
			t.Fatalf("K=%d: bugs %v, want %d", tc.k, res.Bugs, tc.bugs)
		}
		if tc.bugs > 0 && res.Bugs[0].Schedule.String() != tc.path {
			t.Errorf("K=%d: found %v, want %s", tc.k, res.Bugs[0].Schedule, tc.path)
		}
		if tc.bugs == 0 && !res.Complete {
			t.Errorf("K=%d: incomplete", tc.k)
		}
		if tc.bugs > 0 && pb.Bounds()[len(pb.Bounds())-1].Complete {
			t.Errorf("K=%d: the round that stopped at the bug is marked complete", tc.k)
		}
	}
}

func TestPreemptionBoundingReuse(t *testing.T) {
	pb := NewPreemptionBounding(2)
	if _, err := Explore(context.Background(), embrace(), pb, Options{}); err != nil {
		t.Fatal(err)
	}
	res, err := Explore(context.Background(), yielders(2, 2), pb, Options{})
	if err != nil || !res.Complete || res.Stats.Executions != 6 {
		t.Errorf("after a stopped search: %d executions, complete %v, %v", res.Stats.Executions, res.Complete, err)
	}
}
