package oracle

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
)

// failureWitnesses are Memory programs in which a thread makes a plain
// access and fails in one transition (F10): with the access logged, the
// failure ends the execution before another thread can run after the
// access, and logged mode misses what points mode finds. Each names the
// disagreement the strict check reports on it.
var failureWitnesses = []struct {
	name, what, text string
}{
	// Thread 1 stores y0 after its unlock and crashes: main's store after
	// its lock races with it, if main runs between the two.
	{"race", "race-missed", `lang c
races
memory
obj m0 mutex
obj y0 plain
thread 0
  go 1
  lock m0
  pstore y0 1
  unlock m0
thread 1
  lock m0
  unlock m0
  pstore y0 2
  crashif r0 == 0 #1
`},
	// Main unlocks, stores y0 (its own) and crashes: thread 1's failed
	// assertion needs the lock between the unlock and the crash. No race.
	{"bug", "missed", `lang c
races
memory
obj m0 mutex
obj y0 plain
thread 0
  lock m0
  go 1
  unlock m0
  pstore y0 1
  crashif r0 == 0 #1
thread 1
  lock m0
  assert r0 == 1 #2
`},
}

// Logged mode needs a scheduling point between a plain access and a
// failure (failuresFollowPoints): without it the strict check of the two
// modes disagrees (so checkMemory checks only what holds of every program
// there), with it they agree. When the library itself makes such a point,
// the first half fails: the finding (F10) is fixed, and the generator's
// yields can go.
func TestMemoryFailureEndsTransition(t *testing.T) {
	requireCompiler(t)
	ctx := context.Background()
	for _, w := range failureWitnesses {
		t.Run(w.name, func(t *testing.T) {
			p := mustParse(t, w.text)
			if failuresFollowPoints(p) {
				t.Fatalf("the witness has a point before each failure")
			}
			tg, release, err := newTarget(p)
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			// Both modes searched apart (not logged: no reference to
			// reuse), all four requirements checked.
			ct := tg.(*cTarget).mode(false, false)
			ct.strict = true
			mc, ds, err := checkMemory(ctx, ct, nil, DefaultLimits)
			if err != nil || mc == nil || mc.Skipped != "" {
				t.Fatalf("checkMemory: %v, %+v", err, mc)
			}
			if !slices.ContainsFunc(ds, func(d Disagreement) bool { return d.What == w.what }) {
				t.Errorf("checked strictly, the modes agree (%s): logged mode now sees past an access to a failure (F10 fixed?)", mc.summary())
			}

			// As the oracle runs it: not strict, no disagreement.
			res, err := Compare(ctx, p, DefaultLimits, func(s string) bool { return s == "memory" })
			if err != nil {
				t.Fatal(err)
			}
			if res.Memory == nil || res.Memory.Strict || len(res.Disagree) > 0 {
				t.Errorf("as generated programs are checked: %s, %v", res.summary(), res.Disagree)
			}

			// With a point before each failure, strictly checked: the
			// same bugs, races included.
			q := p.Clone()
			for k := range q.Threads {
				q.Threads[k].Ops = pointBeforeFailures(q.Threads[k].Ops)
			}
			if !failuresFollowPoints(q) {
				t.Fatalf("pointBeforeFailures left a failure after an access:\n%s", q)
			}
			res, err = Compare(ctx, q, DefaultLimits, func(s string) bool { return s == "memory" })
			if err != nil {
				t.Fatal(err)
			}
			if res.Memory == nil || !res.Memory.Strict || res.Memory.Skipped != "" || len(res.Disagree) > 0 {
				t.Errorf("with a point before each failure: %s, %v", res.summary(), res.Disagree)
			}
		})
	}
}

// The static condition of the strict check.
func TestFailuresFollowPoints(t *testing.T) {
	for _, tt := range []struct {
		name, ops string
		want      bool
	}{
		{"after a load", "pload y0 r0\n  assert r0 == 1 #1", false},
		{"after a yield", "pload y0 r0\n  syield\n  assert r0 == 1 #1", true},
		{"after a lock", "lock m0\n  crashif r0 == 1 #1", true},
		{"after an annotated read", "read x0 r0\n  assert r0 == 1 #1", false},
		{"first in a body", "choose 2 r0\n  if r0 == 1\n    assert r0 == 1 #1\n  end", false},
		{"after a choice, in a body", "if r0 == 1\n    choose 2 r1\n    assert r1 == 1 #1\n  end", true},
		{"no failure", "pload y0 r0", true},
	} {
		p := mustParse(t, "lang c\nmemory\nobj m0 mutex\nobj y0 plain\nobj x0 var\nthread 0\n  "+tt.ops+"\n")
		if got := failuresFollowPoints(p); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
		for k := range p.Threads {
			p.Threads[k].Ops = pointBeforeFailures(p.Threads[k].Ops)
		}
		if !failuresFollowPoints(p) {
			t.Errorf("%s: pointBeforeFailures left a failure after an access:\n%s", tt.name, p)
		}
	}
}

// diffMemory on verdicts made up for each requirement: what it reports,
// strictly and not.
func TestDiffMemory(t *testing.T) {
	v := func(keys ...string) *Verdict { return verdictWith(keys...) }
	race, race2 := "data-race@a.c:1,a.c:2", "data-race@a.c:3,a.c:4"
	assert, crash := "assertion@a.c:9", "crash@a.c:7"
	for _, tt := range []struct {
		name           string
		points, logged *Verdict
		strict, loose  []string // What of each disagreement, strictly and not
	}{
		{"same bugs", v(assert, crash), v(crash, assert), nil, nil},
		{"another pair", v(race, assert), v(race2, assert), nil, nil},
		{"a race only logged mode finds", v(assert), v(race), []string{"race-extra"}, []string{"race-extra"}},
		{"a bug only logged mode finds", v(race), v(race2, crash), []string{"extra"}, []string{"extra"}},
		{"a race logged mode misses", v(race, crash), v(crash), []string{"race-missed"}, nil},
		{"a bug logged mode misses", v(crash, assert), v(crash), []string{"missed"}, nil},
		{"bugs behind a race", v(race, assert), v(race), nil, nil},
	} {
		for _, strict := range []bool{true, false} {
			want := tt.loose
			if strict {
				want = tt.strict
			}
			var got []string
			for _, d := range diffMemory(&MemoryCheck{Points: tt.points, Logged: tt.logged, Strict: strict}) {
				got = append(got, d.What)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s (strict %v): %v, want %v", tt.name, strict, got, want)
			}
		}
	}
}

// verdictWith is a complete verdict with the bugs of the given keys
// ("kind@where").
func verdictWith(keys ...string) *Verdict {
	v := &Verdict{Bugs: map[string]search.Bug{}, Complete: true}
	for _, k := range keys {
		kind, where, _ := strings.Cut(k, "@")
		kd, err := search.ParseKind(kind)
		if err != nil {
			panic(err)
		}
		o := &search.Outcome{Kind: kd, Where: where}
		v.Bugs[o.Key()] = search.Bug{Outcome: *o}
	}
	return v
}

// In logged mode a reduction by the operations finds a race where there is
// one, not every pair: here every schedule shows thread 1's two increments
// racing with main's load, DPOR one of them (long mode, seed c-313). The
// comparison takes them for one bug, and only on logged programs.
func TestLoggedReductionAnyRace(t *testing.T) {
	requireCompiler(t)
	p := mustParse(t, `lang c
races
memory
obj y0 plain
thread 0
  go 1
  choose 2 r0
  pload y0 r1
thread 1
  pincr y0
  yield
  pincr y0
`)
	res, err := Compare(context.Background(), p, DefaultLimits, func(s string) bool { return s == "dpor" || s == "split-none" })
	if err != nil {
		t.Fatal(err)
	}
	if n := len(raceKeys(res.Reference)); n < 2 {
		t.Fatalf("every schedule shows %d races, want 2 (%s)", n, res.summary())
	}
	for _, d := range res.Disagree {
		if knownFinding(p, 0, d) == "" {
			t.Errorf("%s (%s)", d, res.summary())
		}
	}
	if v := anyRaceKeys(res.Reference); !slices.Equal(v.Keys(), []string{anyRace}) {
		t.Errorf("anyRaceKeys: %v", v.Keys())
	}
}
