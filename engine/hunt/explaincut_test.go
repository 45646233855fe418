package hunt_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/corpus"
	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
)

// The replay that explains a bug ends with the budget: one that the budget
// cuts (its context, or a step the runtime cut at the budget's end) leaves
// the bug with its report as found, which says what was cut, and saved in
// the corpus all the same. The runtime is told the budget's end for the
// replay, and no end after it.
func TestExplainCutByTheBudget(t *testing.T) {
	for _, tc := range []struct {
		name     string
		minimise bool
		// replay is the front end's replay of the bug: it waits for the
		// end it is given, then fails as a replay cut there does.
		replay func(ctx context.Context) error
	}{
		{"context", false, func(ctx context.Context) error {
			<-ctx.Done()
			return fmt.Errorf("replaying: %w", ctx.Err())
		}},
		{"step cut", false, func(ctx context.Context) error {
			<-ctx.Done()
			return fmt.Errorf("%w: thread 1 had not reached its next scheduling point: %w", search.ErrStepCut, context.DeadlineExceeded)
		}},
		{"minimised", true, func(ctx context.Context) error {
			<-ctx.Done()
			return fmt.Errorf("replaying: %w", ctx.Err())
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			const budget = 2 * time.Second
			var told []time.Time
			var firstTold time.Time // after the hunt began
			calls := 0
			start := time.Now()
			res, err := hunt.Run(context.Background(), hunt.Config{
				Executor: executor.New(embrace(), executor.Options{}),
				Request:  hunt.Request{MaxDepth: 100, Minimise: tc.minimise, Budget: budget},
				Explain: func(ctx context.Context, b search.Bug) (*hunt.Explanation, error) {
					calls++
					if _, ok := ctx.Deadline(); !ok {
						return nil, errors.New("the replay was given no end")
					}
					return nil, tc.replay(ctx)
				},
				StepDeadline: func(d time.Time) {
					if firstTold.IsZero() {
						firstTold = time.Now()
					}
					told = append(told, d)
				},
				Corpus: &hunt.Corpus{Dir: dir, Target: corpus.Target{Kind: "binary", Binary: "embrace"}},
			})
			took := time.Since(start)
			if err != nil {
				t.Fatalf("hunt: %v", err)
			}
			if took > budget+time.Minute {
				t.Errorf("the hunt took %s with a budget of %s", took, budget)
			}
			if calls == 0 {
				t.Fatal("the bug was not replayed")
			}
			if len(res.Findings) != 1 {
				t.Fatalf("%d findings; want the deadlock", len(res.Findings))
			}
			f := res.Findings[0]
			r := f.Report
			if r == nil {
				t.Fatal("the bug has no report")
			}
			if !r.Bug || r.Kind != search.Deadlock.String() || r.Path != f.Bug.Schedule.String() || r.Message != f.Bug.Outcome.Message {
				t.Errorf("report %+v; want the deadlock as found, at %s", r, f.Bug.Schedule)
			}
			if !slices.Contains(r.Notes, hunt.ExplainCut) {
				t.Errorf("notes %q; want %q", r.Notes, hunt.ExplainCut)
			}
			if f.Saved == "" || f.SaveErr != nil || r.Saved != f.Saved {
				t.Fatalf("saved at %q (%v), report says %q; want the bug saved", f.Saved, f.SaveErr, r.Saved)
			}
			e, err := corpus.Load(f.Saved)
			if err != nil {
				t.Fatal(err)
			}
			if e.Failure.Kind != search.Deadlock.String() || e.Schedule != f.Bug.Schedule.String() || e.Report == nil {
				t.Errorf("entry: failure %+v, schedule %q, report %v; want the deadlock, its schedule and its report",
					e.Failure, e.Schedule, e.Report != nil)
			}
			// Each replay is told the budget's end, then no end.
			for i := 0; i+1 < len(told); i += 2 {
				if told[i].IsZero() || !told[i+1].IsZero() || told[i].After(firstTold.Add(budget)) {
					t.Errorf("told %v; want each phase's end within the budget, then none", told)
					break
				}
			}
			if n := len(told); n == 0 || !told[n-1].IsZero() {
				t.Errorf("told %v; want no end after the last replay", told)
			}
		})
	}
}

// The report of a data race as found shows the race in the program's
// terms, as a replay's report does: not stdbg's frames.
func TestAsFoundRace(t *testing.T) {
	raw := "WARNING: DATA RACE\nWrite at 0x1 by thread 2:\n  example.com/m.f()\n      /m/f.go:3 +0x1\n" +
		"  github.com/stdbg/stdbg/sthread/internal/rt.(*Thread).run()\n      /src/stdbg/sthread/internal/rt/thread.go:331 +0x1f5\n\n" +
		"Previous read at 0x1 by thread 1:\n  example.com/m.g()\n      /m/f.go:9 +0x1\n"
	s, err := schedule.Parse("1;2")
	if err != nil {
		t.Fatal(err)
	}
	r := hunt.AsFound(search.Bug{Schedule: s, Outcome: search.Outcome{Kind: search.DataRace, Message: raw, Where: "f.go:3"}}, hunt.ExplainCut)
	if strings.Contains(r.Message, "github.com/stdbg/stdbg/") || !strings.Contains(r.Message, "example.com/m.f()") {
		t.Errorf("message:\n%s\nwant the program's frames only", r.Message)
	}
	if r.Banner != "*** DATA RACE ***" || r.Path != "1;2" || !slices.Contains(r.Notes, hunt.ExplainCut) {
		t.Errorf("report %+v", r)
	}
}
