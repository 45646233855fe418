package grade

import (
	"testing"
)

// A search stops at its first bug only when that bug takes all their
// points from every check that shares it: the kinds every one of them
// counts, with no partial credit among them and no check whose verdict
// is on the whole state graph.
func TestDecisive(t *testing.T) {
	const head = "name: x\nlanguage: c\nsubmit: [a.c]\nchecks:\n"
	tests := []struct {
		name     string
		checks   string
		decisive []string // nil: the whole search always runs
		not      []string
	}{
		{"race check alone", "  - {name: r, kind: no-bug, bugs: [race], harness: [h.c]}\n",
			[]string{"data-race", "timeout"}, []string{"deadlock", "assertion"}},
		{"two checks, no kind in common", "  - {name: a, kind: no-bug, bugs: [assertion, misuse], harness: [h.c]}\n" +
			"  - {name: d, kind: no-bug, bugs: [deadlock, leak], harness: [h.c]}\n", nil, nil},
		{"a test and an assertion check", "  - {name: t, kind: test, harness: [h.c]}\n" +
			"  - {name: a, kind: no-bug, bugs: [assertion], harness: [h.c]}\n",
			[]string{"assertion", "crash"}, []string{"misuse", "deadlock"}},
		{"a test and a deadlock check: a deadlock fails both", "  - {name: t, kind: test, harness: [h.c]}\n" +
			"  - {name: d, kind: no-bug, bugs: [deadlock, leak], harness: [h.c]}\n",
			[]string{"deadlock", "timeout"}, []string{"leak", "assertion", "data-race"}},
		{"partial credit", "  - {name: d, kind: no-bug, bugs: [deadlock, leak], harness: [h.c], deduct: {deadlock: 1}}\n", nil, nil},
		{"another harness does not count", "  - {name: r, kind: no-bug, bugs: [race], harness: [h.c]}\n" +
			"  - {name: d, kind: no-bug, bugs: [deadlock], harness: [other.c]}\n",
			[]string{"data-race"}, []string{"deadlock"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Parse([]byte(head + tt.checks))
			if err != nil {
				t.Fatal(err)
			}
			g := &grader{a: a}
			d := g.decisive(&a.Checks[0])
			if (d == nil) != (tt.decisive == nil) {
				t.Fatalf("decisive is nil: %v, want %v", d == nil, tt.decisive == nil)
			}
			for _, k := range tt.decisive {
				if !d(k) {
					t.Errorf("a %s does not decide the checks", k)
				}
			}
			for _, k := range tt.not {
				if d(k) {
					t.Errorf("a %s decides the checks", k)
				}
			}
		})
	}
}

// A test check fails as the program run alone fails: on a panic, a failed
// assertion, a misuse, and a deadlock of every thread (Go's runtime ends
// the program, "all goroutines are asleep"; a C test hangs), but not on a
// leak (the program ended) nor a data race (the race check's business).
func TestTestCheckCounts(t *testing.T) {
	c := Check{Kind: KindTest}
	for kind, want := range map[string]bool{
		"assertion": true, "crash": true, "misuse": true, "deadlock": true, "timeout": true,
		"leak": false, "data-race": false, "livelock": false, "liveness": false,
	} {
		if got := c.counts(kind); got != want {
			t.Errorf("a test check counts a %s: %v, want %v", kind, got, want)
		}
	}
}
