package search

import (
	"context"
	"slices"
	"testing"
)

func TestSamplingStrategies(t *testing.T) {
	tests := []struct {
		name string
		new  func(seed uint64) Strategy
	}{
		{"random", NewRandom},
		{"pct d=1", func(seed uint64) Strategy { return NewPCT(1, seed) }},
		{"pct d=2", func(seed uint64) Strategy { return NewPCT(2, seed) }},
		{"pct d=3", func(seed uint64) Strategy { return NewPCT(3, seed) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Every walk is a valid schedule of the program (Explore
			// checks each step), a sampled search is never complete, and
			// the same seed repeats the same walks.
			run := func(seed uint64) []string {
				rec := &recorder{Strategy: tt.new(seed)}
				res, err := Explore(context.Background(), newFake(2, []fop{choose(0, 3), yield(), create(2)},
					[]fop{lock(1), yield(), unlock(1)}, []fop{lock(1), unlock(1)}), rec, Options{MaxExecutions: 50})
				if err != nil {
					t.Fatal(err)
				}
				if res.Complete || res.Stats.Executions != 50 {
					t.Fatalf("complete %v after %d executions, want an incomplete search of 50", res.Complete, res.Stats.Executions)
				}
				return rec.runs
			}
			a, b := run(7), run(7)
			if !slices.Equal(a, b) {
				t.Errorf("seed 7 gave different walks:\n%q\n%q", a, b)
			}
			// Over many walks different schedules come up, with every data
			// value.
			distinct := map[string]bool{}
			values := map[byte]bool{}
			for _, s := range append(a, run(8)...) {
				distinct[s] = true
				for i := 0; i+2 < len(s); i++ {
					if s[i] == '1' && s[i+1] == ':' {
						values[s[i+2]] = true
					}
				}
			}
			if len(distinct) < 5 || len(values) != 3 {
				t.Errorf("%d distinct schedules, values %v, want variety", len(distinct), values)
			}
		})
	}
}

// TestPCTDepth checks PCT's promise on the deadly embrace, a bug of depth
// 2 (thread 1 must take its first lock before thread 2 takes its first,
// and thread 2 its first before thread 1 its second): with d = 1 a thread
// runs until it blocks or ends, which never deadlocks; with d = 2 a good
// share of the executions find it.
func TestPCTDepth(t *testing.T) {
	count := func(d int) int {
		bugs := &bugCounter{Strategy: NewPCT(d, 1)}
		if _, err := Explore(context.Background(), embrace(), bugs, Options{All: true, MaxExecutions: 200}); err != nil {
			t.Fatal(err)
		}
		return bugs.n
	}
	if n := count(1); n != 0 {
		t.Errorf("d=1 found the deadlock in %d of 200 executions, want none", n)
	}
	// Two threads, executions of at most 9 steps: at least 1/(2*9) of
	// the executions.
	if n := count(2); n < 200/18 {
		t.Errorf("d=2 found the deadlock in %d of 200 executions, want at least %d", n, 200/18)
	}
}

// bugCounter counts the executions that end in a bug.
type bugCounter struct {
	Strategy
	n int
}

func (b *bugCounter) End(r *Report) {
	if r.Outcome != nil && r.Outcome.Kind.IsBug() {
		b.n++
	}
	b.Strategy.End(r)
}

func TestRandomFindsBugs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ex    *fakeExecutor
		where string
	}{
		{"embrace", embrace(), "1:mutex-lock(0x2) 2:mutex-lock(0x1)"},
		{"choice", chooser(), "v != 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Explore(context.Background(), tc.ex, NewRandom(1), Options{MaxExecutions: 1000})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Bugs) != 1 || res.Bugs[0].Outcome.Where != tc.where {
				t.Fatalf("bugs %v, want the one at %q", res.Bugs, tc.where)
			}
		})
	}
}

// TestPCTPreemptions checks PCT's schedules: with every thread present from
// the start, a thread only loses the processor when it blocks, ends, or
// is lowered at one of the d-1 change points, so an execution has at most
// d-1 preemptions, and none for d = 1.
func TestPCTPreemptions(t *testing.T) {
	progs := map[string]func() *fakeExecutor{
		"3x4 yields": func() *fakeExecutor { return yielders(3, 4) },
		"locks":      locker,
	}
	for name, prog := range progs {
		for d := 1; d <= 4; d++ {
			rec := &recorder{Strategy: NewPCT(d, uint64(d))}
			if _, err := Explore(context.Background(), prog(), rec, Options{MaxExecutions: 100}); err != nil {
				t.Fatal(err)
			}
			most := 0
			for _, s := range rec.runs {
				most = max(most, preemptionsOf(t, prog(), s))
			}
			if most > d-1 {
				t.Errorf("%s, d=%d: an execution has %d preemptions", name, d, most)
			}
			if d > 1 && name == "3x4 yields" && most == 0 {
				t.Errorf("%s, d=%d: no execution was preempted in 100", name, d)
			}
		}
	}
}
