package grade_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/frontend/grade"
)

// TestMinimiseNotByClock grades a wrong answer whose failure takes its
// minimisation many times the executions of the search that found it
// (30 schedules searched, every one of the 10,000 it may spend minimising
// spent), once as usual and once
// with no time to spare for minimising (hunt.MinimiseFloor of a
// nanosecond: a minimisation may take four times as long as the search,
// which is what a machine slowed down leaves it): the same result, the
// minimisations' accounts included. A grade's minimisation is bounded by
// its executions (minimise_executions), never by the clock: cut by the
// time the search took, it showed another schedule, and another story,
// on a busy machine.
func TestMinimiseNotByClock(t *testing.T) {
	a, err := grade.Load("../../exercises/c/counter/assignment.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// Far more than the search's 30 executions: the minimisation cannot
	// end within four times the search's time.
	a.Limits.MinimiseExecutions = 10000
	const dir = "../../exercises/c/counter/wrong/read-before-lock"
	var docs [2]string
	for i, floor := range []time.Duration{hunt.MinimiseFloor, time.Nanosecond} {
		func() {
			defer func(f time.Duration) { hunt.MinimiseFloor = f }(hunt.MinimiseFloor)
			hunt.MinimiseFloor = floor
			res, err := grade.Grade(context.Background(), a, dir, grade.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var mins []report.Minimisation
			for _, c := range res.Checks {
				for _, f := range c.Failures {
					if m := f.Report.Minimised; m != nil {
						mins = append(mins, *m)
					}
				}
			}
			b, _ := json.Marshal(mins)
			docs[i] = comparable(res) + "\n" + string(b)
		}()
	}
	if docs[0] != docs[1] {
		t.Errorf("the grading depends on the time left to minimise:\n%s\n%s", docs[0], docs[1])
	}
}

// TestBudgetIsCPUTime grades a program whose threads wait in the kernel
// between their operations: its check takes seconds of wall time and a
// fraction of a second of CPU time, within its budget of 2 s. The budget
// bounds the CPU time a check uses, which a busy machine does not use up
// sooner: bounding wall time, it left C4's reference unfinished beside two
// CPU hogs on a machine at load 35 (its ltl check needs 10-20 s of CPU),
// and this program unfinished on any machine.
func TestBudgetIsCPUTime(t *testing.T) {
	a, err := grade.Load("testdata/waits/assignment.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := grade.Grade(context.Background(), a, "testdata/waits/solution", grade.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Score != res.MaxScore {
		var text strings.Builder
		res.WriteText(&text)
		t.Errorf("%g/%g, want full marks:\n%s", res.Score, res.MaxScore, text.String())
	}
}
