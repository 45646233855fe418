package search

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/model/schedule"
)

// Programs for minimisation.

// embraceTwice: thread 1 creates thread 2, then both loop twice taking
// mutexes 1 and 2 in opposite orders. DFS keeps thread 1 running, so its
// first deadlock is 1;1;1;1;1;1;2 (thread 1 is in its second iteration);
// the shortest is 1;1;2.
func embraceTwice() *fakeExecutor {
	return newFake(1,
		[]fop{create(1), lock(1), lock(2), unlock(2), unlock(1), lock(1), lock(2), unlock(2), unlock(1)},
		[]fop{lock(2), lock(1), unlock(1), unlock(2), lock(2), lock(1), unlock(1), unlock(2)},
	)
}

// startBeforeYield: the smallest schedule of its bug switches back to the
// creator right after the new thread's start, because the creator's next
// step is a Yield that reads what the start wrote.
func startBeforeYield() *fakeExecutor {
	return newFake(1,
		[]fop{create(1), poll(func(v *fakeVars) { v[2] = v[1] }), check(func(v *fakeVars) string { return [...]string{"", "early"}[v[2]] })},
		[]fop{start(func(v *fakeVars) { v[1] = 1 }), lock(1), unlock(1)},
	)
}

// twoPreemptions: thread 1 yields, copies the counter thread 2 increments
// twice, and checks the copy; assertion "A" fails if the copy was taken
// between the increments and checked after both. Thread 3 only yields.
// Every schedule of A has 5 transitions; the one with fewest preemptions,
// 2;1;1;2;1, has two (at steps 2 and 4, thread 2 and thread 1 being still
// enabled).
func twoPreemptions() *fakeExecutor {
	return newFake(3,
		[]fop{yield(), do(func(v *fakeVars) { v[1] = v[0] }), check(func(v *fakeVars) string {
			if v[1] == 1 && v[0] == 2 {
				return "A"
			}
			return ""
		})},
		[]fop{do(func(v *fakeVars) { v[0]++ }), do(func(v *fakeVars) { v[0]++ })},
		[]fop{yield(), yield(), yield(), yield()},
	)
}

// chooseKeep: thread 1 chooses a value in 0..2, yields and fails if it
// chose 2; thread 2 yields three times. Shortest: 1:2;1;1, value kept.
func chooseKeep() *fakeExecutor {
	return newFake(2,
		[]fop{choose(0, 3), yield(), check(func(v *fakeVars) string {
			if v[0] == 2 {
				return "v != 2"
			}
			return ""
		})},
		[]fop{yield(), yield(), yield()},
	)
}

// chooseFar: thread 1 chooses a value in 0..2 and fails at once on 2, or
// after five yields on 1, at the same place "X". Shrinking cannot change
// the value, the exhaustive search finds 1:2;1.
func chooseFar() *fakeExecutor {
	x := func(want int64) fop {
		return check(func(v *fakeVars) string {
			if v[0] == want {
				return "X"
			}
			return ""
		})
	}
	return newFake(1, []fop{choose(0, 3), x(2), yield(), yield(), yield(), yield(), yield(), x(1)})
}

// noisyCounter: thread 1 increments the counter twice and decrements it
// twice, thread 2 fails if it sees 2, thread 3 yields 40 times. The bug
// needs three transitions, 1;1;2, with one preemption.
func noisyCounter() *fakeExecutor {
	inc := do(func(v *fakeVars) { v[0]++ })
	dec := do(func(v *fakeVars) { v[0]-- })
	var noise []fop
	for range 40 {
		noise = append(noise, yield())
	}
	return newFake(3,
		[]fop{inc, inc, dec, dec},
		[]fop{check(func(v *fakeVars) string {
			if v[0] == 2 {
				return "two"
			}
			return ""
		})},
		noise,
	)
}

// rep returns the schedule of n steps of thread id.
func rep(id, n int) schedule.Schedule {
	s := make(schedule.Schedule, n)
	for i := range s {
		s[i] = schedule.Step{Thread: id, Choice: schedule.NoChoice}
	}
	return s
}

// longNoisy is a 40-step failing schedule of noisyCounter.
func longNoisy() schedule.Schedule {
	return concat(rep(3, 19), rep(1, 1), rep(3, 18), rep(1, 1), rep(2, 1))
}

func mustParse(t *testing.T, s string) schedule.Schedule {
	t.Helper()
	sc, err := schedule.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// firstBug explores ex with DFS and returns its first bug.
func firstBug(t *testing.T, ex Executor) Bug {
	t.Helper()
	res, err := Explore(context.Background(), ex, NewDFS(), Options{})
	if err != nil || len(res.Bugs) != 1 {
		t.Fatalf("explore: %v, %v", res.Bugs, err)
	}
	return res.Bugs[0]
}

// bugOf replays s on ex and returns the bug it shows.
func bugOf(t *testing.T, ex Executor, s schedule.Schedule) Bug {
	t.Helper()
	e, err := ex.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := Replay(e, s, 0)
	if err != nil || r.Outcome == nil || !r.Outcome.Kind.IsBug() {
		t.Fatalf("replaying %v: %+v, %v", s, r, err)
	}
	return Bug{Schedule: s, Outcome: *r.Outcome}
}

// checkReplay verifies, independently of the code under test, that s replays to
// an outcome with the given key after exactly its steps, and returns its
// number of preemptions, computed by schedule.Schedule.Preemptions from the
// enabledness seen at each point.
func checkReplay(t *testing.T, ex Executor, s schedule.Schedule, key string) int {
	t.Helper()
	e, err := ex.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var en []map[int]bool
	for k := 0; e.Ended() == nil; k++ {
		if k >= len(s) {
			t.Fatalf("%v: the execution goes on after the schedule", s)
		}
		m := map[int]bool{}
		for _, th := range e.Threads() {
			m[th.ID] = th.Enabled
		}
		en = append(en, m)
		if err := e.Step(s[k]); err != nil {
			t.Fatalf("%v: step %d: %v", s, k+1, err)
		}
	}
	if o := e.Ended(); o.Key() != key || len(en) != len(s) || o.Step != len(s) {
		t.Fatalf("%v ended with %s after %d steps, want %s after %d", s, o.Key(), len(en), key, len(s))
	}
	// Replay agrees.
	e2, _ := ex.Start()
	defer e2.Close()
	r, err := Replay(e2, s, 0)
	if err != nil || r.Outcome == nil || r.Outcome.Key() != key || r.Leftover != 0 || !r.Executed.Equal(s) {
		t.Fatalf("Replay(%v) = %+v, %v", s, r, err)
	}
	return s.Preemptions(func(i, tid int) bool { return en[i][tid] })
}

func TestMinimise(t *testing.T) {
	tests := []struct {
		name  string
		ex    func() *fakeExecutor
		bug   string // "" for DFS's first bug
		opts  MinimiseOptions
		orig  string // the original as run, if bug != ""
		want  string
		pre   int
		prove bool
	}{
		// DFS's first deadlock is 7 long; the shortest is 3 long, and
		// has the one preemption every deadlock needs: at step 3 thread
		// 1 could still take mutex 2.
		{"embrace twice", embraceTwice, "", MinimiseOptions{Exhaustive: true},
			"1;1;1;1;1;1;2", "1;1;2", 1, true},
		{"embrace twice, shrink only", embraceTwice, "", MinimiseOptions{},
			"1;1;1;1;1;1;2", "1;1;2", 1, false},
		{"embrace, from a long schedule", embraceTwice, "1;1;1;1;1;2;2;2;2;1;2", MinimiseOptions{Exhaustive: true},
			"1;1;1;1;1;2;2;2;2;1;2", "1;1;2", 1, true},
		// Two preemptions are needed; the original has more threads,
		// steps and preemptions.
		{"two preemptions", twoPreemptions, "3;1;3;2;3;1;3;2;1", MinimiseOptions{Exhaustive: true},
			"3;1;3;2;3;1;3;2;1", "2;1;1;2;1", 2, true},
		{"two preemptions, from 3", twoPreemptions, "1;2;1;2;1", MinimiseOptions{Exhaustive: true},
			"1;2;1;2;1", "2;1;1;2;1", 2, true},
		{"two preemptions, shrink only", twoPreemptions, "3;1;3;2;3;1;3;2;1", MinimiseOptions{},
			"3;1;3;2;3;1;3;2;1", "2;1;1;2;1", 2, false},
		// The value that makes the bug is kept.
		{"keep the value", chooseKeep, "2;2;1:2;2;1;1", MinimiseOptions{Exhaustive: true},
			"2;2;1:2;2;1;1", "1:2;1;1", 0, true},
		{"keep the value, shrink only", chooseKeep, "2;2;1:2;2;1;1", MinimiseOptions{},
			"2;2;1:2;2;1;1", "1:2;1;1", 0, false},
		// Only the exhaustive search changes a value.
		{"another value", chooseFar, "1:1", MinimiseOptions{Exhaustive: true},
			"1:1;1;1;1;1;1;1;1", "1:2;1", 0, true},
		{"another value, shrink only", chooseFar, "1:1", MinimiseOptions{},
			"1:1;1;1;1;1;1;1;1", "1:1;1;1;1;1;1;1;1", 0, false},
		// A 40-step schedule of a 3-step bug.
		{"noisy counter", noisyCounter, longNoisy().String(), MinimiseOptions{Exhaustive: true},
			longNoisy().String(), "1;1;2", 1, true},
		{"noisy counter, shrink only", noisyCounter, longNoisy().String(), MinimiseOptions{},
			longNoisy().String(), "1;1;2", 1, false},
		// The original is minimal already.
		{"minimal already", embrace, "", MinimiseOptions{Exhaustive: true},
			"1;1;2", "1;1;2", 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := tt.ex()
			var bug Bug
			if tt.bug == "" {
				bug = firstBug(t, ex)
			} else {
				bug = bugOf(t, ex, mustParse(t, tt.bug))
			}
			starts := ex.starts
			m, err := Minimise(context.Background(), ex, bug, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v (%d transitions, %d preemptions) -> %v (%d, %d), proven %v: %d executions (%d shrinking), %d transitions",
				m.Original, m.OriginalLength, m.OriginalPreemptions, m.Schedule, m.Length, m.Preemptions,
				m.Proven, m.Stats.Executions, m.ShrinkStats.Executions, m.Stats.Transitions)
			if got := m.Original.String(); got != tt.orig {
				t.Errorf("original %v, want %v", got, tt.orig)
			}
			if got := m.Schedule.String(); got != tt.want || m.Preemptions != tt.pre || m.Proven != tt.prove {
				t.Errorf("minimised %v with %d preemptions, proven %v; want %v, %d, %v",
					got, m.Preemptions, m.Proven, tt.want, tt.pre, tt.prove)
			}
			key := bug.Outcome.Key()
			if m.Outcome.Key() != key || m.Length != len(m.Schedule) || m.OriginalLength != len(m.Original) {
				t.Errorf("outcome %s, length %d of %v, original length %d of %v",
					m.Outcome.Key(), m.Length, m.Schedule, m.OriginalLength, m.Original)
			}
			if n := int64(ex.starts - starts); n != m.Stats.Executions {
				t.Errorf("%d executions started, Stats says %d", n, m.Stats.Executions)
			}
			if pre := checkReplay(t, ex, m.Schedule, key); pre != m.Preemptions {
				t.Errorf("%v has %d preemptions, Minimise says %d", m.Schedule, pre, m.Preemptions)
			}
			if pre := checkReplay(t, ex, m.Original, key); pre != m.OriginalPreemptions {
				t.Errorf("original %v has %d preemptions, Minimise says %d", m.Original, pre, m.OriginalPreemptions)
			}
			if m.Stats.Executions > DefaultMinimiseExecutions || m.ShrinkStats.Executions >= m.Stats.Executions {
				t.Errorf("stats %+v, shrinking %+v", m.Stats, m.ShrinkStats)
			}
			if ex.open() != 0 {
				t.Errorf("%d executions left open", ex.open())
			}

			// Deterministic.
			m2, err := Minimise(context.Background(), tt.ex(), bug, tt.opts)
			if err != nil || !m2.Schedule.Equal(m.Schedule) || m2.Stats.Executions != m.Stats.Executions {
				t.Errorf("second run: %v after %d executions, %v", m2.Schedule, m2.Stats.Executions, err)
			}
		})
	}
}

// TestBranchAndBound runs the exhaustive phase alone from DFS's first bug:
// one search tightens its bound each time it finds the deadlock, and ends
// with the shortest.
func TestBranchAndBound(t *testing.T) {
	tests := []struct {
		name     string
		ex       func() *fakeExecutor
		from     string
		want     string
		pre      int
		improved int
	}{
		{"embrace twice", embraceTwice, "1;1;1;1;1;1;2", "1;1;2", 1, 1},
		// 1;2;1;2;1 (5 transitions, 3 preemptions), then 2;1;1;2;1.
		{"two preemptions", twoPreemptions, "3;1;3;2;3;1;3;2;1", "2;1;1;2;1", 2, 2},
		{"another value", chooseFar, "1:1;1;1;1;1;1;1;1", "1:2;1", 0, 1},
		{"noisy counter", noisyCounter, longNoisy().String(), "1;1;2", 1, 1},
		{"a start before the creator's poll", startBeforeYield, "1;2;2;1;1", "1;2;1;1", 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := tt.ex()
			from := mustParse(t, tt.from)
			bug := bugOf(t, ex, from)
			pre := checkReplay(t, ex, from, bug.Outcome.Key())
			b, res, err := smallest(context.Background(), ex, bug.Outcome.Key(), len(from), pre, 100000)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("from %v (%d preemptions): %v (%d) after %d improvements, %d executions, %d states, %d cut",
				from, pre, b.best, b.bestPre, b.improved, res.Stats.Executions, res.Stats.States, res.Stats.Pruned+res.Stats.MaxDepthHit)
			if b.best.String() != tt.want || b.bestPre != tt.pre || !res.Complete || b.improved != tt.improved {
				t.Errorf("%v with %d preemptions after %d improvements, complete %v; want %v, %d, %d",
					b.best, b.bestPre, b.improved, res.Complete, tt.want, tt.pre, tt.improved)
			}
			if got := checkReplay(t, ex, b.best, bug.Outcome.Key()); got != b.bestPre {
				t.Errorf("%v has %d preemptions, the search says %d", b.best, got, b.bestPre)
			}
		})
	}
}

// TestMinimiseBudget checks that a minimisation cut by its budget returns
// a confirmed schedule, not proven minimal.
func TestMinimiseBudget(t *testing.T) {
	tests := []struct {
		name   string
		ex     func() *fakeExecutor
		bug    string
		budget int64
		want   string
		proven bool
	}{
		// The first replay, the shrinking (which cannot change the
		// value), then what is left for the search.
		{"no search left", chooseFar, "1:1", 3, "1:1;1;1;1;1;1;1;1", false},
		{"enough", chooseFar, "1:1", 20, "1:2;1", true},
		{"minimum budget", noisyCounter, longNoisy().String(), 1, longNoisy().String(), false},
		{"some shrinking", noisyCounter, longNoisy().String(), 10, "", false},
		{"shrinking cut", embraceTwice, "1;1;1;1;1;2;2;2;2;1;2", 6, "", false},
		// The reducing search of every trace runs 32 executions alone,
		// and 32 more to test its estimate, which fails the test (it
		// says 29% done, then 25%: the program has 1,260 traces); then
		// shrinking takes 31 and finds the minimum; the reducing
		// search of the traces up to its length, taking turns with the
		// first, proves it after 374 executions in all.
		{"search cut", twoPreemptions, "3;1;3;2;3;1;3;2;1", 112, "2;1;1;2;1", false},
		{"search done", twoPreemptions, "3;1;3;2;3;1;3;2;1", 374, "2;1;1;2;1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := tt.ex()
			bug := bugOf(t, ex, mustParse(t, tt.bug))
			starts := ex.starts
			m, err := Minimise(context.Background(), ex, bug, MinimiseOptions{MaxExecutions: tt.budget, Exhaustive: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v -> %v, proven %v, %d executions", m.Original, m.Schedule, m.Proven, m.Stats.Executions)
			if (tt.want != "" && m.Schedule.String() != tt.want) || m.Proven != tt.proven {
				t.Errorf("%v, proven %v; want %v, %v", m.Schedule, m.Proven, tt.want, tt.proven)
			}
			if n := int64(ex.starts - starts); n != m.Stats.Executions || n > max(tt.budget, 2) {
				t.Errorf("%d executions (stats %d), budget %d", n, m.Stats.Executions, tt.budget)
			}
			if m.Length > m.OriginalLength {
				t.Errorf("length %d > %d", m.Length, m.OriginalLength)
			}
			checkReplay(t, ex, m.Schedule, bug.Outcome.Key())
		})
	}
}

// TestMinimiseCancel checks that cancelling stops the minimisation with
// the best schedule so far, confirmed, and no error.
func TestMinimiseCancel(t *testing.T) {
	// The first replay takes 40 steps.
	for _, after := range []int{41, 60, 100, 300} {
		ctx, cancel := context.WithCancel(context.Background())
		ex := noisyCounter()
		bug := bugOf(t, ex, longNoisy())
		steps := 0
		ex.onStep = func() {
			if steps++; steps == after {
				cancel()
			}
		}
		m, err := Minimise(ctx, ex, bug, MinimiseOptions{Exhaustive: true})
		cancel()
		if err != nil {
			t.Fatalf("cancel after %d steps: %v", after, err)
		}
		t.Logf("cancelled after %d steps: %v, %d executions", after, m.Schedule, m.Stats.Executions)
		if m.Proven {
			t.Errorf("cancelled after %d steps: proven", after)
		}
		ex.onStep = nil
		checkReplay(t, ex, m.Schedule, bug.Outcome.Key())
		if ex.open() != 0 {
			t.Errorf("%d executions left open", ex.open())
		}
	}

	// Cancelled before the bug was replayed: nothing to return.
	for _, after := range []int{0, 10} {
		ctx, cancel := context.WithCancel(context.Background())
		ex := noisyCounter()
		bug := bugOf(t, ex, longNoisy())
		steps := 0
		ex.onStep = func() {
			if steps++; steps == after {
				cancel()
			}
		}
		if after == 0 {
			cancel()
		}
		m, err := Minimise(ctx, ex, bug, MinimiseOptions{})
		cancel()
		if !errors.Is(err, context.Canceled) || m != nil {
			t.Errorf("cancelled after %d steps: %+v, %v", after, m, err)
		}
		if ex.open() != 0 {
			t.Errorf("%d executions left open", ex.open())
		}
	}
}

func TestShrink(t *testing.T) {
	ex := noisyCounter()
	bug := bugOf(t, ex, longNoisy())
	m, err := Shrink(context.Background(), ex, bug, MinimiseOptions{Exhaustive: true /* ignored */})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d steps, %d preemptions -> %v: %d executions, %d transitions",
		m.OriginalLength, m.OriginalPreemptions, m.Schedule, m.Stats.Executions, m.Stats.Transitions)
	if m.OriginalLength != 40 || m.Schedule.String() != "1;1;2" || m.Preemptions != 1 || m.Proven || m.Stats.States != 0 {
		t.Errorf("%+v", m)
	}
	if m.Stats.Executions != m.ShrinkStats.Executions+1 {
		t.Errorf("stats %+v, shrinking %+v", m.Stats, m.ShrinkStats)
	}

	// A schedule that stops before the bug: the default policy finishes
	// it, and is part of the original.
	ex = embrace()
	m, err = Shrink(context.Background(), ex, bugOf(t, ex, schedule.Threads(1, 1, 2)), MinimiseOptions{})
	if err != nil || m.Schedule.String() != "1;1;2" || m.Original.String() != "1;1;2" {
		t.Errorf("%+v, %v", m, err)
	}
	ex = twoPreemptions()
	m, err = Shrink(context.Background(), ex, Bug{Schedule: schedule.Threads(2, 1, 1, 2), Outcome: Outcome{Kind: AssertionFailure, Where: "A"}}, MinimiseOptions{})
	if err != nil || m.Original.String() != "2;1;1;2;1" || m.Schedule.String() != "2;1;1;2;1" {
		t.Errorf("%+v, %v", m, err)
	}
}

func TestMinimiseErrors(t *testing.T) {
	deadlock := Outcome{Kind: Deadlock, Where: "1:mutex-lock(0x2) 2:mutex-lock(0x1)"}
	nondet := func() *fakeExecutor {
		ex := embrace()
		ex.vary = func(e *fakeExecution) {
			if e.number >= 2 {
				e.owner[2] = 99 // someone else holds mutex 2 from then on
			}
		}
		return ex
	}
	tests := []struct {
		name string
		ex   *fakeExecutor
		bug  Bug
		opts MinimiseOptions
		want string
		is   error
	}{
		{"not a bug", embrace(), Bug{Outcome: Outcome{Kind: Exited}}, MinimiseOptions{}, "not a bug", nil},
		{"negative budget", embrace(), Bug{Outcome: deadlock}, MinimiseOptions{MaxExecutions: -1}, "negative", nil},
		{"other bug", embrace(), Bug{Schedule: schedule.Threads(1, 1, 2), Outcome: Outcome{Kind: Deadlock, Where: "x"}},
			MinimiseOptions{}, `"1;1;2" ended with deadlock (deadlock) at "1:mutex-lock(0x2) 2:mutex-lock(0x1)", not deadlock@x`, ErrNotReproduced},
		{"no bug", embrace(), Bug{Schedule: schedule.Threads(1, 1, 1), Outcome: deadlock},
			MinimiseOptions{}, "ended with exited", ErrNotReproduced},
		{"diverges", embrace(), Bug{Schedule: schedule.Threads(1, 1, 1, 2), Outcome: deadlock},
			MinimiseOptions{}, "ended with diverged (step 4: thread 2 cannot run: it is blocked in mutex-lock(0x2))", ErrNotReproduced},
		{"depth bound", embrace(), Bug{Schedule: schedule.Threads(1), Outcome: deadlock},
			MinimiseOptions{MaxDepth: 4}, `"1" was cut after 4 transitions`, ErrNotReproduced},
		{"start", func() *fakeExecutor { x := embraceTwice(); x.failStart = 3; return x }(),
			Bug{Schedule: mustParse(t, "1;1;1;1;1;1;2"), Outcome: deadlock}, MinimiseOptions{}, "shrinking: execution 3, step 0: starting the program: fork failed", nil},
		{"step", func() *fakeExecutor { x := embraceTwice(); x.failStep = [2]int{1, 3}; return x }(),
			Bug{Schedule: mustParse(t, "1;1;1;1;1;1;2"), Outcome: deadlock}, MinimiseOptions{}, "replaying the bug: execution 1, step 3 (thread 1): target vanished", nil},
		{"nondeterministic", nondet(), Bug{Schedule: schedule.Threads(1, 1, 2), Outcome: deadlock},
			MinimiseOptions{MaxExecutions: 2}, "1;1;2 failed with deadlock@1:mutex-lock(0x2) 2:mutex-lock(0x1) once, but replaying it gave", ErrNondeterministic},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Minimise(context.Background(), tt.ex, tt.bug, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not wrap %v", err, tt.is)
			}
			if m != nil {
				t.Errorf("result %+v with an error", m)
			}
			if tt.ex.open() != 0 {
				t.Errorf("%d executions left open", tt.ex.open())
			}
		})
	}
	if _, err := Minimise(context.Background(), nil, Bug{Outcome: deadlock}, MinimiseOptions{}); err == nil {
		t.Error("nil executor accepted")
	}
}

// bugRecorder wraps a strategy and records the schedule of every execution
// that ended with a bug.
type bugRecorder struct {
	Strategy
	bugs []Bug
}

func (r *bugRecorder) End(rep *Report) {
	if o := rep.Outcome; o != nil && o.Kind.IsBug() {
		s := make(schedule.Schedule, len(rep.Trace))
		for i, ev := range rep.Trace {
			s[i] = ev.Step
		}
		r.bugs = append(r.bugs, Bug{Schedule: s, Outcome: *o})
	}
	r.Strategy.End(rep)
}

// TestMinimiseOracle checks Minimise against brute force: for every bug of
// small programs, from failing schedules spread over the whole space, the
// exhaustive minimisation finds the smallest (length, preemptions) among
// all the failing schedules of that bug, and shrinking never makes a
// schedule larger.
func TestMinimiseOracle(t *testing.T) {
	mixed := func() *fakeExecutor {
		return newFake(1,
			[]fop{create(1), create(2), lock(1), lock(2), unlock(2), unlock(1)},
			[]fop{lock(2), lock(1), unlock(1), unlock(2)},
			[]fop{choose(0, 2), check(func(v *fakeVars) string { return [...]string{"", "odd"}[v[0]] })},
		)
	}
	// Threads that start with a start of their own, as the runtimes report
	// them: the smallest schedules run a start right before its thread's
	// next step, unless a Yield of another thread must come between.
	startedEmbrace := func() *fakeExecutor {
		return newFake(1,
			[]fop{create(1), create(2), lock(1), lock(2), unlock(2), unlock(1)},
			[]fop{start(nil), lock(2), lock(1), unlock(1), unlock(2)},
			[]fop{start(nil), choose(0, 2), check(func(v *fakeVars) string { return [...]string{"", "odd"}[v[0]] })},
		)
	}
	programs := []struct {
		name string
		ex   func() *fakeExecutor
	}{
		{"started embrace", startedEmbrace},
		{"start before a yield", startBeforeYield},
		{"embrace twice", embraceTwice},
		{"two preemptions", twoPreemptions},
		{"keep the value", chooseKeep},
		{"another value", chooseFar},
		{"two bugs", twoBugs},
		{"mixed", mixed},
		{"philosophers", func() *fakeExecutor { return philosophers(3) }},
		{"hidden", hidden},
	}
	type size struct{ len, pre int }
	less := func(a, b size) bool { return a.len < b.len || (a.len == b.len && a.pre < b.pre) }
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			ex := p.ex()
			rec := &bugRecorder{Strategy: NewDFS()}
			if _, err := Explore(context.Background(), ex, rec, Options{All: true}); err != nil {
				t.Fatal(err)
			}
			best := map[string]size{}
			byKey := map[string][]Bug{}
			for _, b := range rec.bugs {
				key := b.Outcome.Key()
				sz := size{len(b.Schedule), checkReplay(t, ex, b.Schedule, key)}
				if old, ok := best[key]; !ok || less(sz, old) {
					best[key] = sz
				}
				byKey[key] = append(byKey[key], b)
			}
			var runs, execs, shrinkExecs, minimalShrinks int64
			for key, bugs := range byKey {
				step := max(len(bugs)/20, 1)
				for i := 0; i < len(bugs); i += step {
					b := bugs[i]
					m, err := Minimise(context.Background(), ex, b, MinimiseOptions{Exhaustive: true})
					if err != nil {
						t.Fatal(err)
					}
					if got := (size{m.Length, m.Preemptions}); got != best[key] || !m.Proven {
						t.Errorf("%s from %v: %v %+v proven %v, want %+v", key, b.Schedule, m.Schedule, got, m.Proven, best[key])
					}
					if pre := checkReplay(t, ex, m.Schedule, key); pre != m.Preemptions {
						t.Errorf("%v: %d preemptions, Minimise says %d", m.Schedule, pre, m.Preemptions)
					}
					s, err := Shrink(context.Background(), ex, b, MinimiseOptions{})
					if err != nil {
						t.Fatal(err)
					}
					if less(size{s.OriginalLength, s.OriginalPreemptions}, size{s.Length, s.Preemptions}) ||
						less(size{s.Length, s.Preemptions}, best[key]) {
						t.Errorf("%s: shrinking %v gave %v", key, b.Schedule, s.Schedule)
					}
					if pre := checkReplay(t, ex, s.Schedule, key); pre != s.Preemptions {
						t.Errorf("%v: %d preemptions, Shrink says %d", s.Schedule, pre, s.Preemptions)
					}
					runs++
					execs += m.Stats.Executions
					shrinkExecs += s.Stats.Executions
					if s.Length == best[key].len && s.Preemptions == best[key].pre {
						minimalShrinks++
					}
				}
			}
			t.Logf("%d failing executions, %d bugs; %d minimisations: %.1f executions on average (shrinking alone: %.1f, minimal %d times)",
				len(rec.bugs), len(byKey), runs, float64(execs)/float64(runs), float64(shrinkExecs)/float64(runs), minimalShrinks)
		})
	}
}
