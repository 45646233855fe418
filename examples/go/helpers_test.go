package goexamples

import (
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
)

// expectBug explores f and checks that stdbg reports a bug of the given kind
// whose report contains wants, and that replaying its schedule reproduces
// it. It logs the report.
func expectBug(t *testing.T, f func(), kind search.Kind, wants ...string) *sthread.Bug {
	t.Helper()
	res, err := sthread.Explore(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) != 1 {
		t.Fatalf("found %d bugs, want one %v", len(res.Bugs), kind)
	}
	bug := res.Bugs[0]
	t.Logf("found after %d executions:\n%s", res.Stats.Executions, bug)
	if bug.Kind != kind {
		t.Fatalf("found a %v, want a %v", bug.Kind, kind)
	}
	text := bug.String()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("the report lacks %q", w)
		}
	}
	again, err := sthread.RunSchedule(bug.Schedule, f)
	switch {
	case err != nil:
		t.Errorf("replaying %s: %v", bug.Schedule, err)
	case again == nil:
		t.Errorf("replaying %s: no bug", bug.Schedule)
	case again.Kind != bug.Kind || again.Message != bug.Message:
		t.Errorf("replaying %s gave %v (%s), want %v (%s)", bug.Schedule, again.Kind, again.Message, bug.Kind, bug.Message)
	}
	return bug
}

// expectClean explores f exhaustively and checks that stdbg finds no bug.
func expectClean(t *testing.T, f func()) {
	t.Helper()
	res, err := sthread.Explore(f, sthread.All())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range res.Bugs {
		t.Errorf("unexpected bug:\n%s", b)
	}
	if !res.Complete || res.DepthLimited {
		t.Errorf("the exploration did not cover every schedule: %+v", res)
	}
	t.Logf("%d executions, %d transitions, no bug", res.Stats.Executions, res.Stats.Transitions)
}
