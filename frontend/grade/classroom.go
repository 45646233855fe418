package grade

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// This file writes a Result for the classroom tools that are not
// Gradescope: GitHub Classroom's autograding (a test runner's result, read
// by its grading reporter) and PrairieLearn's external grader
// (results.json). docs/teaching.md says how to set each up and where its
// format is documented.

// Classroom is the result of one test runner of GitHub Classroom's
// autograding, as its grading reporter (the action
// education/autograding-grading-reporter) reads it from the runner's
// output `result`, base64-encoded: the points of the assignment are the
// sum of the tests' scores over the sum of the runners' max_score.
type Classroom struct {
	Version int `json:"version"`
	// Status is pass when every check passed, error when one could not
	// be graded, else fail.
	Status   string          `json:"status"`
	MaxScore float64         `json:"max_score"`
	Tests    []ClassroomTest `json:"tests"`
}

// ClassroomTest is one check, with the points it got.
type ClassroomTest struct {
	Name string `json:"name"`
	// Status is pass, fail (points lost), or error (the check could not
	// be graded: the program does not build, is missing, or did not
	// finish).
	Status  string  `json:"status"`
	Score   float64 `json:"score"`
	Message string  `json:"message"`
	// LineNo and TestCode are the reporter's, unused here.
	LineNo   int    `json:"line_no"`
	TestCode string `json:"test_code"`
}

// Classroom converts r for GitHub Classroom: a test per check, its
// message the check's feedback as text.
func (r *Result) Classroom() *Classroom {
	c := &Classroom{Version: 1, Status: "pass", MaxScore: round(r.MaxScore), Tests: []ClassroomTest{}}
	for i := range r.Checks {
		ch := &r.Checks[i]
		var b strings.Builder
		ch.writeText(&b)
		status := "fail"
		switch ch.Status {
		case StatusPassed:
			status = "pass"
		case StatusError, StatusNotBuilt, StatusIncomplete, StatusUnfinished:
			status = "error"
		}
		switch {
		case status == "error":
			c.Status = "error"
		case status == "fail" && c.Status == "pass":
			c.Status = "fail"
		}
		c.Tests = append(c.Tests, ClassroomTest{Name: ch.Name, Status: status, Score: round(ch.Score), Message: b.String()})
	}
	return c
}

// PrairieLearn is an external grader's results.json of PrairieLearn
// (docs/externalGrading.md of PrairieLearn, "Grading results"): the
// score as a fraction of the points, and a test per check.
type PrairieLearn struct {
	// Gradable is false when the submission could not be graded (it
	// does not build, a file is missing, or a check ran out of its time
	// bound): PrairieLearn then
	// awards or takes no points and counts no attempt, and shows
	// FormatErrors.
	Gradable     bool               `json:"gradable"`
	Score        float64            `json:"score"`
	Message      string             `json:"message"`
	Output       string             `json:"output"`
	FormatErrors []string           `json:"format_errors,omitempty"`
	Tests        []PrairieLearnTest `json:"tests"`
}

// PrairieLearnTest is one check.
type PrairieLearnTest struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Points      float64 `json:"points"`
	MaxPoints   float64 `json:"max_points"`
	Message     string  `json:"message"`
	Output      string  `json:"output"`
}

// PrairieLearn converts r for PrairieLearn's external grading.
func (r *Result) PrairieLearn() *PrairieLearn {
	p := &PrairieLearn{Gradable: true, Tests: []PrairieLearnTest{},
		Message: fmt.Sprintf("%s: %g/%g points.", r.Assignment, round(r.Score), round(r.MaxScore))}
	if r.MaxScore > 0 {
		p.Score = float64(int64(r.Score/r.MaxScore*10000+0.5)) / 10000
	}
	var all strings.Builder
	r.WriteText(&all)
	p.Output = all.String()
	for i := range r.Checks {
		c := &r.Checks[i]
		if c.Status == StatusNotBuilt || c.Status == StatusIncomplete || c.Status == StatusUnfinished {
			// A check that ran out of its time bound has no grade: no
			// attempt is counted, and grading again gives one.
			p.Gradable = false
			if len(p.FormatErrors) == 0 {
				p.FormatErrors = append(p.FormatErrors, c.Message)
			}
		}
		var b strings.Builder
		c.writeText(&b)
		msg := "passed"
		switch {
		case len(c.Failures) > 0:
			msg = c.Failures[0].Class
		case c.Status != StatusPassed && c.Message != "":
			msg, _, _ = strings.Cut(c.Message, "\n")
		}
		p.Tests = append(p.Tests, PrairieLearnTest{Name: c.Name, Description: c.Search, Points: round(c.Score),
			MaxPoints: round(c.MaxScore), Message: msg, Output: b.String()})
	}
	if !p.Gradable {
		p.Score = 0
	}
	p.fit(prairieLearnLimit)
	return p
}

// prairieLearnLimit is the size PrairieLearn allows results.json
// ("this file should be limited to 1 MB").
const prairieLearnLimit = 1 << 20

// cutNote ends an output cut to fit.
const cutNote = "\n[cut: the rest is too long for PrairieLearn; stdbg grade --out writes it in full]"

// fit shortens p's texts until its JSON takes at most limit bytes: first
// the whole feedback (each test's output holds its part of it), then each
// test's output, cut with a note that says where the rest is.
func (p *PrairieLearn) fit(limit int) {
	size := func() int {
		b, _ := json.Marshal(p)
		return len(b)
	}
	if size() <= limit {
		return
	}
	p.Output = "The feedback is too long for PrairieLearn: each test's output holds its part."
	over := size() - limit
	for over > 0 {
		// Cut the longest output by what is over, and a little more for
		// the note and JSON's escapes.
		k := 0
		for i := range p.Tests {
			if len(p.Tests[i].Output) > len(p.Tests[k].Output) {
				k = i
			}
		}
		t := &p.Tests[k]
		if len(t.Output) <= len(cutNote) {
			return // nothing left to cut
		}
		keep := max(0, len(t.Output)-over-len(cutNote)-1024)
		for keep > 0 && !utf8.RuneStart(t.Output[keep]) {
			keep--
		}
		t.Output = t.Output[:keep] + cutNote
		over = size() - limit
	}
}
