package targetsearch_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/target/targetsearch"
)

// fakeClock is a clock that only the steps of spinner move: a millisecond
// each.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// spinner is an executor whose one thread yields forever, every step
// taking a millisecond of the clock: each execution runs to the depth
// bound, or until the search is stopped.
type spinner struct {
	clock *fakeClock
	steps int
}

type spinning struct{ s *spinner }

func (s *spinner) Start() (search.Execution, error) { return spinning{s}, nil }

func (e spinning) Threads() []search.Thread {
	return []search.Thread{{ID: 1, Op: syncmodel.Op{Kind: syncmodel.Yield}, Enabled: true}}
}
func (e spinning) Ended() *search.Outcome { return nil }
func (e spinning) Close() error           { return nil }

func (e spinning) Step(s schedule.Step) error {
	if s.Thread != 1 {
		return errors.New("no such thread")
	}
	e.s.steps++
	e.s.clock.t = e.s.clock.t.Add(time.Millisecond)
	return nil
}

// A deep execution under way when the budget runs out, or when stdbg
// stops the search, is cut at the next step: the deadlines are not only
// looked at between executions or every few hundred steps. The execution
// cut is not explored: the search is not complete. A depth cut, by
// contrast, completes the search within the bound.
func TestServeCutsTheExecutionUnderWay(t *testing.T) {
	const maxDepth = 100000
	tests := []struct {
		name     string
		budget   time.Duration // 0: none
		stopAt   time.Duration // 0: never stopped
		depth    int           // the depth bound
		cutFrom  int           // the execution is cut after cutFrom..cutTo steps
		cutTo    int
		complete bool
	}{
		{"budget", 500 * time.Millisecond, 0, maxDepth, 500, 500, false},
		// The stop is looked at every 10ms of the clock.
		{"stopped", 0, 300 * time.Millisecond, maxDepth, 300, 310, false},
		{"depth bound", 0, 0, 700, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := &fakeClock{t: time.Unix(1e9, 0)}
			defer targetsearch.SetClock(clock.now)()
			start := clock.t
			ex := &spinner{clock: clock}
			spec := &targetsearch.Spec{Request: hunt.Request{Search: search.Spec{Strategy: "dfs"}, MaxDepth: tt.depth}}
			if tt.budget > 0 {
				spec.SearchUntil = start.Add(tt.budget).UnixNano()
			}
			var stopped func() bool
			if tt.stopAt > 0 {
				stopped = func() bool { return !clock.t.Before(start.Add(tt.stopAt)) }
			}
			var buf bytes.Buffer
			if err := targetsearch.Serve(ex, spec, &buf, nil, targetsearch.Controls{Stopped: stopped}); err != nil {
				t.Fatal(err)
			}
			res, err := targetsearch.Read(&buf, nil)
			if err != nil || res == nil {
				t.Fatalf("Read: %v, %v", res, err)
			}
			if res.Error != "" {
				t.Fatalf("search failed: %s", res.Error)
			}
			ran := tt.depth // the steps run: to the bound, or to the cut
			if tt.cutTo > 0 {
				ran = res.Cut
			}
			if res.Cut < tt.cutFrom || res.Cut > tt.cutTo || ex.steps != ran {
				t.Errorf("cut after %d steps (%d run), want %d..%d", res.Cut, ex.steps, tt.cutFrom, tt.cutTo)
			}
			if res.Complete != tt.complete || res.BudgetSpent != (tt.budget > 0) || res.Stopped != (tt.stopAt > 0) {
				t.Errorf("complete %v, budget spent %v, stopped %v; want %v, %v, %v",
					res.Complete, res.BudgetSpent, res.Stopped, tt.complete, tt.budget > 0, tt.stopAt > 0)
			}
			if cut := res.Cut > 0; res.DepthLimited == cut || (res.Stats.MaxDepthHit == 1) == cut || res.Stats.Executions != 1 {
				t.Errorf("depth limited %v, %d executions, %d cut by the bound", res.DepthLimited, res.Stats.Executions, res.Stats.MaxDepthHit)
			}
		})
	}
}

// A budget (Spec.Budget) starts when the target begins to search: however
// long the process took to get there, the search gets all of it, and the
// target announces the deadlines it took, first, for a process that goes on
// with the search after it (Began).
func TestServeStartsTheBudget(t *testing.T) {
	for _, minimise := range []bool{false, true} {
		t.Run(fmt.Sprintf("minimise=%v", minimise), func(t *testing.T) {
			clock := &fakeClock{t: time.Unix(1e9, 0)}
			defer targetsearch.SetClock(clock.now)()
			// The process took a while to start: the budget is not spent.
			clock.t = clock.t.Add(time.Hour)
			start := clock.t
			ex := &spinner{clock: clock}
			spec := &targetsearch.Spec{Request: hunt.Request{Search: search.Spec{Strategy: "dfs"}, MaxDepth: 100000, Budget: time.Second, Minimise: minimise}}
			var buf bytes.Buffer
			// The runtime is told when a step still running is cut: at
			// the search's end, then at the minimisation's, then never.
			var deadlines []int64
			ctl := targetsearch.Controls{Deadline: func(until int64) { deadlines = append(deadlines, until) }}
			if err := targetsearch.Serve(ex, spec, &buf, nil, ctl); err != nil {
				t.Fatal(err)
			}
			var first targetsearch.Message
			n := 0
			res, err := targetsearch.Read(&buf, func(m targetsearch.Message) {
				if n++; n == 1 {
					first = m
				}
			})
			if err != nil || res == nil {
				t.Fatalf("Read: %v, %v", res, err)
			}
			searchFor, minimiseFor := time.Second, time.Second
			if minimise {
				// hunt.Deadlines' shares: the last tenth is the replays'.
				searchFor, minimiseFor = 800*time.Millisecond, 900*time.Millisecond
			}
			want := targetsearch.Began{SearchUntil: start.Add(searchFor).UnixNano(), MinimiseUntil: start.Add(minimiseFor).UnixNano()}
			if first.Began == nil || *first.Began != want {
				t.Errorf("minimise %v: first message %+v, want began %+v", minimise, first, want)
			}
			if wantCut := []int64{want.SearchUntil, want.MinimiseUntil, 0}; !slices.Equal(deadlines, wantCut) {
				t.Errorf("minimise %v: the runtime's deadlines %v, want %v", minimise, deadlines, wantCut)
			}
			if !res.BudgetSpent || res.Cut != int(searchFor/time.Millisecond) {
				t.Errorf("minimise %v: budget spent %v, cut after %d steps; want spent after %d", minimise, res.BudgetSpent, res.Cut, searchFor/time.Millisecond)
			}
		})
	}
}
