package ctarget_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stdbg/stdbg/ctarget"
	"github.com/stdbg/stdbg/schedule"
	"github.com/stdbg/stdbg/search"
	"github.com/stdbg/stdbg/wire"
)

// TestMinimiseDeadlyEmbrace shrinks deliberately long failing schedules of
// the real deadly embrace to the shortest one, 1;1;2;2 (or 1;2;2;1).
func TestMinimiseDeadlyEmbrace(t *testing.T) {
	exe, err := ctarget.Build(filepath.Join("..", "examples", "c", "deadly-embrace.c"))
	if err != nil {
		t.Fatal(err)
	}
	_, c := startChecker(t, exe, ctarget.Config{Flags: wire.FlagFastExit})
	long := []string{
		"1;1;1;1;1;1;2",         // what DFS finds first
		"1;1;1;1;1;2;2;2;2;1;2", // one full round each, then the embrace
		"1;2;2;2;2;2;1;2",       // the worker goes first, deadlock on its second round
	}
	for _, text := range long {
		s, _ := schedule.Parse(text)
		e, err := c.Begin()
		if err != nil {
			t.Fatal(err)
		}
		rr, err := search.Replay(e, s, 100)
		e.Close()
		if err != nil {
			t.Fatal(err)
		}
		if rr.Outcome == nil || rr.Outcome.Kind != search.Deadlock {
			t.Fatalf("%s does not deadlock: %+v", text, rr.Outcome)
		}
		bug := search.Bug{Schedule: rr.Executed, Outcome: *rr.Outcome}
		m, err := search.Minimise(context.Background(), c, bug, search.MinimiseOptions{MaxDepth: 100, Exhaustive: true})
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if got := m.Schedule.String(); got != "1;1;2;2" && got != "1;2;2;1" {
			t.Errorf("%s minimised to %s, want a 4-step schedule", text, got)
		}
		if m.Length != 4 || !m.Proven || m.OriginalLength != len(rr.Executed) {
			t.Errorf("%s: %+v", text, m)
		}
		t.Logf("%s (%d steps) -> %s in %d executions", text, m.OriginalLength, m.Schedule, m.Stats.Executions)
	}
}
