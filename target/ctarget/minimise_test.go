package ctarget_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// TestMinimiseDeadlyEmbrace shrinks deliberately long failing schedules of
// the real deadly embrace to the shortest one, 1;1;2;2 (or 1;2;2;1).
func TestMinimiseDeadlyEmbrace(t *testing.T) {
	exe, err := ctarget.Build(filepath.Join("..", "..", "examples", "c", "deadly-embrace.c"))
	if err != nil {
		t.Fatal(err)
	}
	_, c := startChecker(t, exe, targetproc.Config{Flags: wire.FlagFastExit})
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

// TestMinimiseBundledDeadlocks minimises the first deadlock DPOR finds in
// the bundled deadlocking programs and checks that the result is proven
// minimal, its length and preemptions, and the executions it took: a few
// times the search's for the philosophers (every trace of the program is
// about twice the search's), and for the ABBA of three threads, whose
// search is lucky (2 executions of the program's 160 traces) while proving
// needs the traces of up to 17 steps (149 with the search cut there), no
// more than running every trace of the program once and a few more.
func TestMinimiseBundledDeadlocks(t *testing.T) {
	tests := []struct {
		file          string
		args          []string
		length, pre   int
		maxExecutions func(search, traces int64) int64
	}{
		{"dining-philosophers.c", []string{"2"}, 6, 1, func(n, _ int64) int64 { return 3*n + 12 }},
		{"dining-philosophers.c", []string{"3"}, 9, 1, func(n, _ int64) int64 { return 3*n + 12 }},
		{"dining-philosophers.c", []string{"4"}, 12, 1, func(n, _ int64) int64 { return 3 * n }},
		{"dining-philosophers.c", []string{"6"}, 18, 1, func(n, _ int64) int64 { return 3 * n }},
		{"dining-philosophers.c", []string{"8"}, 24, 1, func(n, _ int64) int64 { return 3 * n }},
		{"deadly-embrace.c", nil, 4, 1, func(_, _ int64) int64 { return 20 }},
		{"abba-three.c", nil, 17, 1, func(_, traces int64) int64 { return traces + 10 }},
	}
	for _, tt := range tests {
		t.Run(tt.file+strings.Join(tt.args, ""), func(t *testing.T) {
			exe, err := ctarget.Build(filepath.Join("..", "..", "examples", "c", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			_, c := startChecker(t, exe, targetproc.Config{Args: tt.args, Flags: wire.FlagFastExit, KeepThreads: true})
			res, err := search.Explore(context.Background(), c, search.NewDPOR(), search.Options{MaxDepth: 1000})
			if err != nil || len(res.Bugs) != 1 || res.Bugs[0].Outcome.Kind != search.Deadlock {
				t.Fatalf("search: %v, %v", res.Bugs, err)
			}
			m, err := search.Minimise(context.Background(), c, res.Bugs[0], search.MinimiseOptions{MaxDepth: 1000,
				Exhaustive: true, SearchExecutions: res.Stats.Executions})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("found in %d executions, %d steps, %d preemptions; minimised to %v (%d, %d), proven %v, in %d executions",
				res.Stats.Executions, m.OriginalLength, m.OriginalPreemptions, m.Schedule, m.Length, m.Preemptions, m.Proven,
				m.Stats.Executions)
			if !m.Proven || m.Length != tt.length || m.Preemptions != tt.pre {
				t.Errorf("%d steps, %d preemptions, proven %v (%s); want %d, %d, proven", m.Length, m.Preemptions, m.Proven,
					m.Unproven, tt.length, tt.pre)
			}
			// Every trace of the program, as the proof's own search
			// sees them.
			all, err := search.Explore(context.Background(), c, search.NewDPOR(), search.Options{MaxDepth: 1000, All: true})
			if err != nil || !all.Complete {
				t.Fatalf("every trace: complete %v, %v", all.Complete, err)
			}
			if limit := tt.maxExecutions(res.Stats.Executions, all.Stats.Executions); m.Stats.Executions > limit {
				t.Errorf("%d executions to minimise, more than %d (the search ran %d, the program has %d traces)",
					m.Stats.Executions, limit, res.Stats.Executions, all.Stats.Executions)
			}
		})
	}
}
