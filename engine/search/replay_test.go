package search

import (
	"context"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/model/schedule"
)

func TestReplay(t *testing.T) {
	// Thread 1 takes mutex 1 across a yield; thread 2 yields, then takes it.
	handoff := func() *fakeExecutor {
		return newFake(2, []fop{lock(1), yield(), unlock(1)}, []fop{yield(), lock(1), unlock(1)})
	}
	tests := []struct {
		name     string
		ex       *fakeExecutor
		sched    string
		maxDepth int
		kind     Kind // -1: no outcome
		message  string
		executed string
		leftover int
		depth    bool
	}{
		// Divergences.
		{"no such thread", embrace(), "1;3", 0, Diverged,
			"step 2: thread 3 does not exist", "1", 1, false},
		{"blocked", embrace(), "1;1;1;2", 0, Diverged,
			"step 4: thread 2 cannot run: it is blocked in mutex-lock(0x2)", "1;1;1", 1, false},
		{"unwanted choice", embrace(), "1:0", 0, Diverged,
			"step 1: thread 1 makes no data choice (it is about to run thread-create()) but the schedule gives it value 0", "", 1, false},
		{"missing choice", chooser(), "1", 0, Diverged,
			"step 1: thread 1 makes a data choice among 3 values (choose()) but the schedule gives none; write 1:v with v in 0..2", "", 1, false},
		{"choice out of range", chooser(), "1:3;1", 0, Diverged,
			"step 1: thread 1 is given value 3 but its data choice (choose()) takes values 0..2", "", 2, false},

		// Endings.
		{"bug", embrace(), "1;1;2", 0, Deadlock, "deadlock", "1;1;2", 0, false},
		{"longer than the execution", embrace(), "1;1;2;2;1", 0, Deadlock, "deadlock", "1;1;2", 2, false},
		{"choice bug", chooser(), "1:2;1", 0, AssertionFailure, "assertion `v != 2' failed", "1:2;1", 0, false},
		{"depth bound in the tail", embrace(), "1", 3, -1, "", "1;1;1", 0, true},
		{"depth bound in the schedule", embrace(), "1;1;1;1;1", 3, -1, "", "1;1;1", 2, true},
		{"ends at the depth bound", chooser(), "1:2;1", 2, AssertionFailure, "assertion `v != 2' failed", "1:2;1", 0, false},

		// The default policy after the schedule.
		{"empty schedule", embrace(), "", 0, Exited, "exit 0", "1;1;1;1;1;2;2;2;2", 0, false},
		{"keeps the last thread", embrace(), "1;2", 0, Exited, "exit 0", "1;2;2;2;2;1;1;1;1", 0, false},
		{"keeps it from the start", yielders(2, 2), "2", 0, Exited, "exit 0", "2;2;1;1", 0, false},
		{"lowest id when blocked", handoff(), "1;2", 0, Exited, "exit 0", "1;2;1;1;2;2", 0, false},
		{"value 0 for choices", chooser(), "", 0, Exited, "exit 0", "1:0;1", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := schedule.Parse(tt.sched)
			if err != nil {
				t.Fatal(err)
			}
			e, err := tt.ex.Start()
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			r, err := Replay(e, s, tt.maxDepth)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.kind < 0 && r.Outcome != nil:
				t.Errorf("outcome %+v, want none", r.Outcome)
			case tt.kind >= 0 && r.Outcome == nil:
				t.Errorf("no outcome, want %v", tt.kind)
			case tt.kind >= 0 && (r.Outcome.Kind != tt.kind || r.Outcome.Message != tt.message):
				t.Errorf("outcome %v %q, want %v %q", r.Outcome.Kind, r.Outcome.Message, tt.kind, tt.message)
			case tt.kind >= 0 && r.Outcome.Step != len(r.Executed):
				t.Errorf("outcome at step %d after %d steps", r.Outcome.Step, len(r.Executed))
			}
			if got := r.Executed.String(); got != tt.executed {
				t.Errorf("executed %q, want %q", got, tt.executed)
			}
			if r.Leftover != tt.leftover || r.DepthLimited != tt.depth {
				t.Errorf("leftover %d, depth-limited %v; want %d, %v", r.Leftover, r.DepthLimited, tt.leftover, tt.depth)
			}
		})
	}
}

func TestReplayErrors(t *testing.T) {
	tests := []struct {
		name  string
		ex    *fakeExecutor
		sched schedule.Schedule
		want  string
	}{
		{"executor", func() *fakeExecutor { x := embrace(); x.failStep = [2]int{1, 2}; return x }(),
			schedule.Threads(1, 1, 2), "step 2 (thread 1): target vanished"},
		{"stuck in the schedule", func() *fakeExecutor { x := embrace(); x.stuck = true; return x }(),
			schedule.Threads(1, 1, 2, 1), "step 4: no thread is enabled"},
		{"stuck in the tail", func() *fakeExecutor { x := embrace(); x.stuck = true; return x }(),
			schedule.Threads(1, 1, 2), "step 4: no thread is enabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := tt.ex.Start()
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			r, err := Replay(e, tt.sched, 0)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if r == nil {
				t.Error("no partial result")
			}
		})
	}
	if _, err := Replay(nil, nil, 0); err == nil {
		t.Error("nil execution accepted")
	}
}

// TestReplayFound checks that the schedule of every bug Explore reports
// reproduces it exactly.
func TestReplayFound(t *testing.T) {
	for _, ex := range []*fakeExecutor{embrace(), chooser(), twoBugs()} {
		res, err := Explore(context.Background(), ex, NewDFS(), Options{All: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range res.Bugs {
			e, err := ex.Start()
			if err != nil {
				t.Fatal(err)
			}
			r, err := Replay(e, b.Schedule, 0)
			e.Close()
			if err != nil || r.Outcome == nil || *r.Outcome != b.Outcome || r.Leftover != 0 || !r.Executed.Equal(b.Schedule) {
				t.Errorf("replaying %v: %+v, %v; want %+v", b.Schedule, r, err, b.Outcome)
			}
		}
	}
}
