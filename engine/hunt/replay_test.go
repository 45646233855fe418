package hunt_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/corpus"
	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
)

// replayEmbrace replays text on a fresh execution of embrace, with its
// report.
func replayEmbrace(t *testing.T, r hunt.Replay) *hunt.Replayed {
	t.Helper()
	e, err := executor.New(embrace(), executor.Options{}).Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	rd, err := r.Run(context.Background(), e, func(o *search.Outcome) *report.Report { return report.Build(e, o, syms{}) })
	if err != nil {
		t.Fatalf("replaying %s: %v", r, err)
	}
	if rd.Report == nil {
		t.Fatalf("replaying %s: no report", r)
	}
	return rd
}

func mustParse(t *testing.T, text string) schedule.Schedule {
	t.Helper()
	s, err := schedule.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The verdict on a stored bug replayed again: the four verdicts of stdbg
// corpus run and sthread.Check's corpus, from how the replay ends.
func TestJudge(t *testing.T) {
	deadlock := replayEmbrace(t, hunt.Replay{Schedule: mustParse(t, "1;1;2;1;2"), MaxDepth: 100})
	if deadlock.Outcome == nil || deadlock.Outcome.Kind != search.Deadlock {
		t.Fatalf("1;1;2 does not deadlock: %+v", deadlock.Outcome)
	}
	where := deadlock.Outcome.Where
	// The whole clean run, and one step more.
	clean := replayEmbrace(t, hunt.Replay{Schedule: mustParse(t, "1"), MaxDepth: 100}).Executed
	longer := append(clean, schedule.Step{Thread: 1, Choice: schedule.NoChoice}).String()
	n := len(clean)
	tests := []struct {
		name     string
		schedule string
		maxDepth int
		want     corpus.Failure
		status   hunt.Status
		detail   string
	}{
		{"the same deadlock", "1;1;2", 100, corpus.Failure{Kind: "deadlock", Where: where}, hunt.Reproduces, "deadlock: "},
		{"a deadlock elsewhere", "1;1;2", 100, corpus.Failure{Kind: "deadlock", Where: "elsewhere"}, hunt.FailsDifferently, "now deadlock: "},
		{"another kind", "1;1;2", 100, corpus.Failure{Kind: "assertion-failure", Where: "x.c:3"}, hunt.FailsDifferently, "(was assertion-failure at x.c:3)"},
		{"runs cleanly", "1;1;1", 100, corpus.Failure{Kind: "deadlock", Where: where}, hunt.Fixed, "the whole schedule runs and the program ends cleanly"},
		{"a thread that does not exist", "1;3", 100, corpus.Failure{Kind: "deadlock", Where: where}, hunt.Diverged, "step 2: thread 3 does not exist"},
		{"the program ends first", longer, 100, corpus.Failure{Kind: "deadlock", Where: where}, hunt.Diverged,
			fmt.Sprintf("the execution ended after %d of the schedule's %d steps", n, n+1)},
		{"the depth bound first", "1;1;1;1", 2, corpus.Failure{Kind: "deadlock", Where: where}, hunt.Diverged,
			"the depth bound (2) was reached after 2 of the schedule's 4 steps"},
		{"the program does not end", "1", 3, corpus.Failure{Kind: "deadlock", Where: where}, hunt.Diverged,
			"the schedule ran, but the program did not end within 3 steps"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rd := replayEmbrace(t, hunt.Replay{Schedule: mustParse(t, tt.schedule), MaxDepth: tt.maxDepth})
			v := rd.Judge(tt.want)
			if v.Status != tt.status || !strings.Contains(v.Detail, tt.detail) {
				t.Errorf("%s: %s (%s), want %s (%s)", tt.schedule, v.Status, v.Detail, tt.status, tt.detail)
			}
			if v.Status.Failing() != (tt.status == hunt.Reproduces || tt.status == hunt.FailsDifferently) {
				t.Errorf("%s: Failing() = %v", tt.status, v.Status.Failing())
			}
			if v.Replayed != rd {
				t.Error("the verdict does not hold the replay it judged")
			}
		})
	}
}

// A lasso's verdict: the runs of its cycle that came back to the state
// where it began decide it.
func TestJudgeLasso(t *testing.T) {
	livelock := corpus.Failure{Kind: "livelock", Where: "spin.c:7"}
	cycle := schedule.Schedule{{Thread: 1, Choice: schedule.NoChoice}}
	tests := []struct {
		name   string
		rd     hunt.Replayed
		status hunt.Status
		loops  bool
		detail string
	}{
		{"every run came back", hunt.Replayed{Replay: hunt.Replay{Cycle: cycle}, Runs: 3, Back: 3},
			hunt.Reproduces, true, "the cycle still comes back to its state (3 runs)"},
		{"one run did not", hunt.Replayed{Replay: hunt.Replay{Cycle: cycle}, Runs: 3, Back: 2},
			hunt.Fixed, false, "2 of 3 runs of the cycle came back"},
		{"the program now ends", hunt.Replayed{Replay: hunt.Replay{Cycle: cycle}, Runs: 3, Outcome: &search.Outcome{Kind: search.Exited}},
			hunt.Fixed, false, "0 of 3 runs"},
		{"the program now fails", hunt.Replayed{Replay: hunt.Replay{Cycle: cycle}, Runs: 3, Outcome: &search.Outcome{Kind: search.Deadlock, Message: "stuck"}},
			hunt.FailsDifferently, false, "now deadlock: stuck (was livelock)"},
		{"diverged", hunt.Replayed{Replay: hunt.Replay{Cycle: cycle}, Runs: 3, Outcome: &search.Outcome{Kind: search.Diverged, Message: "step 2: thread 4 does not exist"}},
			hunt.Diverged, false, "step 2: thread 4 does not exist"},
		{"an empty cycle: the program still ends", hunt.Replayed{Replay: hunt.Replay{Cycle: schedule.Schedule{}}, Runs: 3, Outcome: &search.Outcome{Kind: search.Exited}},
			hunt.Reproduces, true, "the run still ends after the stem"},
		{"an empty cycle: the program goes on", hunt.Replayed{Replay: hunt.Replay{Cycle: schedule.Schedule{}}, Runs: 3},
			hunt.Fixed, false, "no longer loops"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.rd.Judge(livelock)
			if v.Status != tt.status || !strings.Contains(v.Detail, tt.detail) {
				t.Errorf("%s (%s), want %s (%s)", v.Status, v.Detail, tt.status, tt.detail)
			}
			if tt.rd.Loops() != tt.loops {
				t.Errorf("Loops() = %v, want %v", tt.rd.Loops(), tt.loops)
			}
		})
	}
}

// A debugger follows a replay one scheduling step at a time: Before sees
// each step with the threads at its scheduling point, the schedule's steps
// and then the default policy's, and stops the replay when it says so.
func TestReplayBefore(t *testing.T) {
	var seen []hunt.Point
	r := hunt.Replay{Schedule: mustParse(t, "1;1"), MaxDepth: 100, Before: func(p hunt.Point) error {
		seen = append(seen, p)
		return nil
	}}
	rd := replayEmbrace(t, r)
	if rd.Outcome == nil || rd.Outcome.Kind != search.Exited {
		t.Fatalf("1;1 then the default policy: %+v, want a clean exit", rd.Outcome)
	}
	if len(seen) != len(rd.Executed) || len(seen) < 3 {
		t.Fatalf("Before saw %d steps of %d run", len(seen), len(rd.Executed))
	}
	for i, p := range seen {
		if p.Step != i+1 || p.Next != rd.Executed[i] || p.Scheduled != (i < 2) || len(p.Threads) == 0 {
			t.Errorf("point %d: %+v (ran %v)", i+1, p, rd.Executed[i])
		}
	}
	if n := len(seen[2].Threads); n != 2 {
		t.Errorf("step 3 sees %d threads, want the two of the program", n)
	}

	stop := errors.New("the debugger left")
	r.Before = func(p hunt.Point) error {
		if p.Step == 2 {
			return stop
		}
		return nil
	}
	e, err := executor.New(embrace(), executor.Options{}).Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	rd, err = r.Run(context.Background(), e, nil)
	if !errors.Is(err, stop) || len(rd.Executed) != 1 {
		t.Errorf("stopped before step 2: %v, %d steps run", err, len(rd.Executed))
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r.Before = nil
	e2, err := executor.New(embrace(), executor.Options{}).Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	if _, err := r.Run(ctx, e2, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("a replay under a cancelled context: %v", err)
	}
}
