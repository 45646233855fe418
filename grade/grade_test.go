package grade_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/stdbg/stdbg/grade"
)

// gradeAll grades every exercise's reference and wrong answers; by
// default a representative few are (see exercises/README.md).
var gradeAll = flag.Bool("grade.all", false, "grade every reference and wrong answer of exercises/ (minutes)")

// representative are the submissions graded by default: one exercise of
// each language with its reference and wrong answers that cover the
// hints of waits and locks.
var representative = map[string]bool{
	"c/counter/solution":                     true,
	"c/counter/wrong/early-return":           true,
	"c/bounded-buffer/solution":              true,
	"c/bounded-buffer/wrong/if-wait":         true,
	"c/bounded-buffer/wrong/one-cond-signal": true,
	"go/worker-pool/solution":                true,
	"go/worker-pool/wrong/add-in-goroutine":  true,
}

// expect is a wrong answer's expected grading (wrong/NAME/expect.yaml):
// the checks it fails, and the hints it gets.
type expect struct {
	Fails []string `yaml:"fails"`
	Hints []string `yaml:"hints"`
}

type submission struct {
	name, dir  string
	assignment string
	want       *expect // nil: the reference, full marks
}

func submissions(t testing.TB) []submission {
	root := filepath.Join("..", "exercises")
	asgs, err := filepath.Glob(filepath.Join(root, "*", "*", "assignment.yaml"))
	if err != nil || len(asgs) == 0 {
		t.Fatalf("no exercises under %s: %v", root, err)
	}
	var out []submission
	for _, a := range asgs {
		ex := filepath.Dir(a)
		rel, _ := filepath.Rel(root, ex)
		out = append(out, submission{name: rel + "/solution", dir: filepath.Join(ex, "solution"), assignment: a})
		wrongs, _ := filepath.Glob(filepath.Join(ex, "wrong", "*"))
		if len(wrongs) < 4 {
			t.Errorf("%s has %d wrong answers, want at least 4", rel, len(wrongs))
		}
		for _, w := range wrongs {
			b, err := os.ReadFile(filepath.Join(w, "expect.yaml"))
			if err != nil {
				t.Fatalf("%s: %v", w, err)
			}
			var e expect
			if err := yaml.Unmarshal(b, &e); err != nil {
				t.Fatalf("%s: %v", w, err)
			}
			if len(e.Fails) == 0 {
				t.Fatalf("%s/expect.yaml names no failing check", w)
			}
			out = append(out, submission{name: rel + "/wrong/" + filepath.Base(w), dir: w, assignment: a, want: &e})
		}
	}
	return out
}

func TestGradeExercises(t *testing.T) {
	for _, sub := range submissions(t) {
		if !*gradeAll && !representative[sub.name] {
			continue
		}
		if testing.Short() && strings.HasPrefix(sub.name, "go/") && !*gradeAll {
			// Go submissions build twice (with and without the race
			// detector): seconds each.
			continue
		}
		t.Run(sub.name, func(t *testing.T) {
			a, err := grade.Load(sub.assignment)
			if err != nil {
				t.Fatal(err)
			}
			res, err := grade.Grade(context.Background(), a, sub.dir, grade.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			res.WriteText(&text)
			if sub.want == nil {
				if res.Score != res.MaxScore {
					t.Fatalf("the reference scores %g/%g:\n%s", res.Score, res.MaxScore, text.String())
				}
				return
			}
			var hints []string
			for _, c := range res.Checks {
				failing := slices.Contains(sub.want.Fails, c.Name)
				switch {
				case failing && c.Score >= c.MaxScore:
					t.Errorf("check %q: full marks, want points lost", c.Name)
				case !failing && c.Score != c.MaxScore:
					t.Errorf("check %q: %g/%g, want full marks", c.Name, c.Score, c.MaxScore)
				}
				if failing && len(c.Failures) == 0 && c.Status == grade.StatusPassed {
					t.Errorf("check %q passed", c.Name)
				}
				for _, f := range c.Failures {
					if len(f.Story) == 0 || f.Replay == "" || f.Debug == "" {
						t.Errorf("check %q: a failure without its story or replay command", c.Name)
					}
					for _, h := range f.Hints {
						hints = append(hints, h.Pattern)
					}
				}
			}
			for _, h := range sub.want.Hints {
				if !slices.Contains(hints, h) {
					t.Errorf("hint %q not given (got %v)", h, hints)
				}
			}
			if t.Failed() {
				t.Log(text.String())
			}
		})
	}
}

// TestGradeTwice grades a wrong answer twice: the same result (but the
// times).
func TestGradeTwice(t *testing.T) {
	a, err := grade.Load("../exercises/c/bounded-buffer/assignment.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var docs [2]string
	for i := range docs {
		res, err := grade.Grade(context.Background(), a, "../exercises/c/bounded-buffer/wrong/one-cond-signal", grade.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res.Seconds = 0
		for k := range res.Checks {
			res.Checks[k].Seconds = 0
			for j := range res.Checks[k].Failures {
				res.Checks[k].Failures[j].Report.Minimised = nil // counts executions, which may differ
			}
		}
		b, _ := json.Marshal(res)
		docs[i] = string(b)
	}
	if docs[0] != docs[1] {
		t.Fatalf("two gradings differ:\n%s\n%s", docs[0], docs[1])
	}
}
