package grade_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/grade"
)

// TestProgressAndLTLChecks grades a progress check and an ltl check end to
// end: two threads that back off politely for ever fail both with a lasso
// the student can replay; two that take a mutex pass both.
func TestProgressAndLTLChecks(t *testing.T) {
	a, err := grade.Load("testdata/progress/assignment.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir   string
		kinds []string // the failure of each check, "" for a pass
	}{
		{"testdata/progress/polite", []string{"livelock", "liveness"}},
		{"testdata/progress/locked", []string{"", ""}},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			res, err := grade.Grade(context.Background(), a, tc.dir, grade.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			res.WriteText(&text)
			for i, c := range res.Checks {
				want := tc.kinds[i]
				switch {
				case want == "" && (c.Status != grade.StatusPassed || c.Score != c.MaxScore):
					t.Errorf("check %q: %s, %g/%g; want a pass", c.Name, c.Status, c.Score, c.MaxScore)
				case want != "" && (c.Status != grade.StatusFailed || c.Score != 0 || len(c.Failures) != 1):
					t.Errorf("check %q: %s, %g/%g, %d failures; want one failure and no points", c.Name, c.Status, c.Score, c.MaxScore, len(c.Failures))
				case want != "":
					f := c.Failures[0]
					if f.Kind != want || !strings.Contains(f.Schedule, ")*") || !strings.Contains(f.Replay, ")*'") || len(f.Story) == 0 {
						t.Errorf("check %q: failure %s, schedule %q, replay %q; want a %s lasso", c.Name, f.Kind, f.Schedule, f.Replay, want)
					}
					if !strings.Contains(f.Message, "strongly fair") && !strings.Contains(f.Message, "anywhere in it") {
						t.Errorf("check %q: %q does not say the cycle is strongly fair", c.Name, f.Message)
					}
				}
			}
			if t.Failed() {
				t.Log(text.String())
			}
		})
	}
}
