package oracle

import (
	"context"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
)

// spinPrograms are spins and retries in both runtimes (docs/spin.md), each
// with what every schedule of it finds: a spin that ends is no bug, one
// that never ends is a livelock of its thread, and a retry that gives up
// keeps its bug (its turns count: they never wait).
var spinPrograms = []struct {
	name string
	text string
	want search.Kind // exampleClean: no bug
}{
	{"go/spin that ends", `lang go
obj a0 atomic
thread 0
  go 1
  spin a0 1
    yield
  end
thread 1
  astore a0 1
`, search.Exited},
	{"go/spin for ever", `lang go
obj a0 atomic
thread 0
  go 1
  spin a0 1
  end
thread 1
  astore a0 2
`, search.Livelock},
	{"go/retry gives up", `lang go
obj a0 atomic
thread 0
  go 1
  retry a0 1 2 #1
thread 1
  astore a0 1
`, search.AssertionFailure},
	{"c/spin that ends", `lang c
races
memory
obj a0 atomic
thread 0
  go 1
  spin a0 1
    yield
  end
  join 1
thread 1
  astore a0 1
`, search.Exited},
	{"c/spin for ever", `lang c
races
memory
obj a0 atomic
thread 0
  go 1
  spin a0 1
  end
thread 1
  astore a0 2
`, search.Livelock},
	{"c/retry gives up", `lang c
races
memory
obj a0 atomic
thread 0
  go 1
  retry a0 1 3 #1
  join 1
thread 1
  astore a0 1
`, search.AssertionFailure},
}

// TestSpinsAgreeWithSpinsUnrolled: on each program, every schedule and
// DPOR report the same bugs (and traces, but those an end cuts short, see
// known), and the spin check finds the program's bugs the same with its
// spins unrolled (checkSpin).
func TestSpinsAgreeWithSpinsUnrolled(t *testing.T) {
	for _, tc := range spinPrograms {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if p.Lang == C {
				requireCompiler(t)
			}
			res, err := Compare(context.Background(), p, DefaultLimits, func(s string) bool { return s == "dpor" || s == "spin" })
			if err != nil {
				t.Fatal(err)
			}
			if res.Skipped != "" {
				t.Fatalf("skipped: %s", res.Skipped)
			}
			for _, d := range res.Disagree {
				if d.What != "trace-missed-at-end" { // (not a finding: see known)
					t.Errorf("%s", d)
				}
			}
			var kinds []string
			for _, b := range res.Reference.Bugs {
				kinds = append(kinds, b.Outcome.Kind.String())
			}
			got := strings.Join(kinds, ",")
			if tc.want == search.Exited && got != "" || tc.want != search.Exited && got != tc.want.String() {
				t.Errorf("every schedule found %q, want %v", got, tc.want)
			}
		})
	}
}

// The spin check's terms: a bug only the unrolled program shows is one
// the rule hid; a deadlock of the unrolled program that lists a spun-out
// thread is no bug of the program's, and tells that a spin may not end; a
// leak of the program leaves its spinning threads out.
func TestSpinKeys(t *testing.T) {
	pl := spinPlaces{lines: map[string]bool{":12": true}, sites: map[string]bool{"@s1": true}}
	bug := func(k search.Kind, where string) search.Bug {
		return search.Bug{Outcome: search.Outcome{Kind: k, Where: where}}
	}
	tests := []struct {
		name     string
		bugs     []search.Bug
		unrolled bool
		keys     []string
		spun     bool
	}{
		{"an assertion", []search.Bug{bug(search.AssertionFailure, "A1")}, false, []string{"assertion@A1"}, false},
		{"a spun-out deadlock", []search.Bug{bug(search.Deadlock, "T0@s1,T2@s5")}, true, nil, true},
		{"a deadlock without spins", []search.Bug{bug(search.Deadlock, "T0@s3,T2@s5")}, true, []string{"deadlock@T0@s3,T2@s5"}, false},
		{"a spun-out leak in C", []search.Bug{bug(search.Leak, "sem_wait@prog.c:12,pthread_mutex_lock@prog.c:30")}, true, nil, true},
		{"a leak beside a spinner", []search.Bug{bug(search.Leak, "T0@s1,T2@s5")}, false, []string{"leak@T2@s5"}, false},
		{"a livelock", []search.Bug{bug(search.Livelock, "T0@s1")}, false, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &Verdict{Bugs: map[string]search.Bug{}}
			for i, b := range tt.bugs {
				v.Bugs[strings.Repeat("k", i+1)] = b
			}
			keys, spun := spinKeys(v, pl, tt.unrolled)
			if got := sortedSet(keys); strings.Join(got, " ") != strings.Join(tt.keys, " ") || spun != tt.spun {
				t.Errorf("keys %v, spun %v; want %v, %v", got, spun, tt.keys, tt.spun)
			}
		})
	}
}
