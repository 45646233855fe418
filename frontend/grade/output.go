package grade

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/output/htmltrace"
)

// This file writes a Result: the text a student reads, Gradescope's
// results.json, a plain JSON document and the HTML trace of each failure.

// Gradescope is a results.json document of Gradescope's autograder
// specification (gradescope-autograders.readthedocs.io, "Autograder
// Specifications").
type Gradescope struct {
	Score         float64          `json:"score"`
	ExecutionTime int              `json:"execution_time"`
	Output        string           `json:"output"`
	OutputFormat  string           `json:"output_format"`
	Tests         []GradescopeTest `json:"tests"`
}

// GradescopeTest is one test of results.json.
type GradescopeTest struct {
	Name         string  `json:"name"`
	Number       string  `json:"number"`
	Score        float64 `json:"score"`
	MaxScore     float64 `json:"max_score"`
	Status       string  `json:"status"`
	Output       string  `json:"output"`
	OutputFormat string  `json:"output_format"`
	Visibility   string  `json:"visibility"`
}

// Gradescope converts r for Gradescope: a test per check, its output the
// check's feedback as text.
func (r *Result) Gradescope() *Gradescope {
	g := &Gradescope{Score: round(r.Score), ExecutionTime: int(r.Seconds + 0.5), OutputFormat: "text",
		Output: fmt.Sprintf("%s: %g/%g points. Submission's processes confined by: %s.", r.Assignment, round(r.Score), round(r.MaxScore), r.Confinement),
		Tests:  []GradescopeTest{}}
	for i := range r.Checks {
		c := &r.Checks[i]
		var b strings.Builder
		c.writeText(&b)
		status := "failed"
		if c.Status == StatusPassed {
			status = "passed"
		}
		g.Tests = append(g.Tests, GradescopeTest{Name: c.Name, Number: fmt.Sprint(i + 1), Score: round(c.Score), MaxScore: round(c.MaxScore),
			Status: status, Output: b.String(), OutputFormat: "text", Visibility: c.Visibility})
	}
	return g
}

func round(x float64) float64 {
	return float64(int64(x*100+0.5)) / 100
}

// WriteText writes the feedback a student reads.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %g/%g points\n", r.Assignment, round(r.Score), round(r.MaxScore))
	for i := range r.Checks {
		b.WriteString("\n")
		r.Checks[i].writeText(&b)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeText is one check's feedback.
func (c *CheckResult) writeText(b *strings.Builder) {
	mark := "PASS"
	if c.Status != StatusPassed {
		mark = "FAIL"
	}
	fmt.Fprintf(b, "[%s] %s (%g/%g)\n", mark, c.Name, round(c.Score), round(c.MaxScore))
	if c.Message != "" {
		for _, l := range strings.Split(strings.TrimRight(c.Message, "\n"), "\n") {
			b.WriteString("  " + l + "\n")
		}
	}
	if c.Search != "" {
		fmt.Fprintf(b, "  Search: %s.\n", c.Search)
	}
	for _, f := range c.Failures {
		fmt.Fprintf(b, "  %s: %s\n", f.Class, f.Explanation)
		fmt.Fprintf(b, "  What the checker saw: %s\n", f.Message)
		b.WriteString("  How it happens (schedule " + f.Schedule + "):\n")
		for _, s := range f.Story {
			b.WriteString("    " + s + "\n")
		}
		if len(f.Lines) > 0 {
			b.WriteString("  Your lines involved:\n")
			for _, l := range f.Lines {
				b.WriteString("    " + l + "\n")
			}
		}
		for _, h := range f.Hints {
			b.WriteString("  Hint: " + h.Text + "\n")
		}
		b.WriteString("  Replay it: " + f.Replay + "\n")
		b.WriteString("  Step through it in the debugger: " + f.Debug + "\n")
		if f.HTML != "" {
			b.WriteString("  Trace: " + f.HTML + "\n")
		}
	}
}

// WriteHTML writes the trace of each failure into dir, as
// check-N-K.html, and records each page's name in its Failure.
func (r *Result) WriteHTML(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := range r.Checks {
		c := &r.Checks[i]
		for k := range c.Failures {
			f := &c.Failures[k]
			if f.page == nil {
				continue
			}
			name := fmt.Sprintf("check-%d-%d.html", i+1, k+1)
			if err := writeAtomic(filepath.Join(dir, name), f.page); err != nil {
				return err
			}
			f.HTML = name
		}
	}
	return nil
}

// page renders the trace of a failure (while the program's sources are
// there to show).
func page(check string, f *Failure, r *report.Report, version string) []byte {
	summary := append([]string{f.Class + ": " + f.Explanation}, f.Story...)
	for _, h := range f.Hints {
		summary = append(summary, "Hint: "+h.Text)
	}
	rep := *r
	rep.Replay = f.Replay
	var b bytes.Buffer
	if err := htmltrace.Write(&b, []*report.Report{&rep}, htmltrace.Options{Title: check, Summary: summary, Version: version}); err != nil {
		return nil
	}
	return b.Bytes()
}

// Outputs are where WriteFiles writes a grading's results: the files of
// Dir (feedback.txt, the HTML traces, results.json for Gradescope,
// result.json, classroom.json for GitHub Classroom and prairielearn.json
// for PrairieLearn), and each of the four results elsewhere when its path
// is given. A path left "" with Dir "" is not written.
type Outputs struct {
	Dir                                        string
	Plain, Gradescope, Classroom, PrairieLearn string
}

// WriteFiles writes the outputs of a grading. Each file is written whole
// or not at all.
func (r *Result) WriteFiles(o Outputs) error {
	if o.Dir != "" {
		if err := r.WriteHTML(o.Dir); err != nil {
			return fmt.Errorf("writing the traces: %w", err)
		}
		var b strings.Builder
		r.WriteText(&b)
		if err := writeAtomic(filepath.Join(o.Dir, "feedback.txt"), []byte(b.String())); err != nil {
			return err
		}
		for _, f := range []struct {
			path *string
			name string
		}{{&o.Gradescope, "results.json"}, {&o.Plain, "result.json"}, {&o.Classroom, "classroom.json"}, {&o.PrairieLearn, "prairielearn.json"}} {
			if *f.path == "" {
				*f.path = filepath.Join(o.Dir, f.name)
			}
		}
	}
	for _, f := range []struct {
		path string
		doc  any
	}{{o.Plain, r}, {o.Gradescope, r.Gradescope()}, {o.Classroom, r.Classroom()}, {o.PrairieLearn, r.PrairieLearn()}} {
		if f.path == "" {
			continue
		}
		js, err := json.MarshalIndent(f.doc, "", "  ")
		if err != nil {
			return fmt.Errorf("writing %s: %w", f.path, err)
		}
		if err := writeAtomic(f.path, append(js, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// writeAtomic writes a file through a temporary one renamed into place.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
