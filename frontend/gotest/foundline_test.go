package gotest

import (
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
)

// TestFoundLine: a bug about to be minimised is told under its test in
// one line (kind, message, schedule, entry, the minimisation's bound); a
// final finding adds no line, its report comes with the test's result.
func TestFoundLine(t *testing.T) {
	sched, err := schedule.Parse("1;1;2")
	if err != nil {
		t.Fatal(err)
	}
	bug := search.Bug{Schedule: sched, Outcome: search.Outcome{Kind: search.Deadlock, Message: "no goroutine can go on\nmore"}}
	for _, tc := range []struct {
		name string
		f    hunt.Finding
		want string
	}{
		{"about to be minimised", hunt.Finding{Bug: bug, Minimising: true, Saved: "testdata/stdbg/TestX/deadlock-1.json",
			MinimiseFor: 5 * time.Second},
			"    stdbg: deadlock found: no goroutine can go on; Path = 1;1;2; saved testdata/stdbg/TestX/deadlock-1.json; " +
				"minimising its schedule (for at most 5s)"},
		{"not saved, no bound of its own", hunt.Finding{Bug: bug, Minimising: true},
			"    stdbg: deadlock found: no goroutine can go on; Path = 1;1;2; minimising its schedule"},
		{"final", hunt.Finding{Bug: bug}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FoundLine(&tc.f); got != tc.want {
				t.Errorf("FoundLine = %q, want %q", got, tc.want)
			}
		})
	}
}
