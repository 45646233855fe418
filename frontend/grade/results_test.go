package grade_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/stdbg/stdbg/frontend/grade"
)

// sample is a result with a passed and a failed check.
func sample() *grade.Result {
	return &grade.Result{Assignment: "A", Score: 3, MaxScore: 5, Confinement: "wall-clock bound only", Seconds: 1.2,
		Checks: []grade.CheckResult{
			{Name: "one", Kind: "no-bug", Score: 3, MaxScore: 3, Visibility: "visible", Status: grade.StatusPassed, Search: "exhaustive"},
			{Name: "two", Kind: "test", Score: 0, MaxScore: 2, Visibility: "after_due_date", Status: grade.StatusFailed,
				Failures: []grade.Failure{{Kind: "deadlock", Class: "Deadlock", Story: []string{"Thread 1 takes the lock m."},
					Replay: "stdbg replay --schedule '1;2' t.c", Debug: "stdbg replay --gdb --schedule '1;2' t.c",
					Hints: []grade.Hint{{Pattern: grade.PatternLockOrder, Text: "take the locks in one order"}}}}},
		}}
}

// TestResultsJSONSchema checks results.json against Gradescope's
// autograder specification: a top-level score, and tests each with a
// name, score, max_score, output and a known visibility.
func TestResultsJSONSchema(t *testing.T) {
	dir := t.TempDir()
	if err := sample().WriteFiles(grade.Outputs{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc["score"].(float64); !ok {
		t.Fatalf("score missing or not a number: %v", doc["score"])
	}
	if doc["score"].(float64) != 3 {
		t.Errorf("score %v, want 3", doc["score"])
	}
	known := map[string]bool{"score": true, "execution_time": true, "output": true, "output_format": true, "visibility": true,
		"stdout_visibility": true, "extra_data": true, "tests": true, "leaderboard": true}
	for k := range doc {
		if !known[k] {
			t.Errorf("unknown top-level key %q", k)
		}
	}
	tests, ok := doc["tests"].([]any)
	if !ok || len(tests) != 2 {
		t.Fatalf("tests: %v", doc["tests"])
	}
	testKeys := map[string]bool{"score": true, "max_score": true, "status": true, "name": true, "name_format": true, "number": true,
		"output": true, "output_format": true, "tags": true, "visibility": true, "extra_data": true}
	vis := map[string]bool{"visible": true, "hidden": true, "after_due_date": true, "after_published": true}
	for i, x := range tests {
		tc := x.(map[string]any)
		for k := range tc {
			if !testKeys[k] {
				t.Errorf("test %d: unknown key %q", i, k)
			}
		}
		for _, k := range []string{"score", "max_score"} {
			if _, ok := tc[k].(float64); !ok {
				t.Errorf("test %d: %s missing or not a number", i, k)
			}
		}
		for _, k := range []string{"name", "output"} {
			if _, ok := tc[k].(string); !ok {
				t.Errorf("test %d: %s missing or not a string", i, k)
			}
		}
		if v, _ := tc["visibility"].(string); !vis[v] {
			t.Errorf("test %d: visibility %q", i, v)
		}
		if s, _ := tc["status"].(string); s != "passed" && s != "failed" {
			t.Errorf("test %d: status %q", i, s)
		}
	}
	if tests[1].(map[string]any)["visibility"] != "after_due_date" {
		t.Errorf("the check's visibility is lost")
	}
	// The plain JSON holds the same result.
	var plain grade.Result
	b, err = os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &plain); err != nil || plain.Score != 3 || len(plain.Checks) != 2 || plain.Checks[1].Failures[0].Hints[0].Pattern != grade.PatternLockOrder {
		t.Fatalf("result.json: %v %+v", err, plain)
	}
}

// TestClassroomJSON checks classroom.json against what GitHub Classroom's
// grading reporter (education/autograding-grading-reporter) reads from a
// test runner: a JSON object, base64-encoded in the runner's result, with
// max_score, a status (pass, fail or error) and tests, each with a name,
// a status, a score and a message; the points it reports are the sum of
// the tests' scores over the sum of the runners' max_score.
func TestClassroomJSON(t *testing.T) {
	dir := t.TempDir()
	if err := sample().WriteFiles(grade.Outputs{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "classroom.json"))
	if err != nil {
		t.Fatal(err)
	}
	// As the workflow hands it over: base64, then decoded by the reporter.
	encoded := base64.StdEncoding.EncodeToString(b)
	raw, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version  int      `json:"version"`
		Status   string   `json:"status"`
		MaxScore *float64 `json:"max_score"`
		Tests    []struct {
			Name    *string  `json:"name"`
			Status  string   `json:"status"`
			Score   *float64 `json:"score"`
			Message *string  `json:"message"`
		} `json:"tests"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.MaxScore == nil || *doc.MaxScore != 5 || doc.Status != "fail" || doc.Version != 1 {
		t.Fatalf("classroom.json: version %d, status %q, max_score %v; want 1, fail, 5", doc.Version, doc.Status, doc.MaxScore)
	}
	total := 0.0
	want := []struct {
		status string
		score  float64
	}{{"pass", 3}, {"fail", 0}}
	if len(doc.Tests) != len(want) {
		t.Fatalf("%d tests, want %d", len(doc.Tests), len(want))
	}
	for i, tc := range doc.Tests {
		if tc.Name == nil || tc.Score == nil || tc.Message == nil || tc.Status != want[i].status || *tc.Score != want[i].score {
			t.Errorf("test %d: %+v, want status %s, score %g, a name and a message", i, tc, want[i].status, want[i].score)
			continue
		}
		total += *tc.Score
	}
	if total != 3 {
		t.Errorf("the reporter would say %g/%g points, want 3/5", total, *doc.MaxScore)
	}
}

// TestPrairieLearnJSON checks prairielearn.json against PrairieLearn's
// external grading results format: gradable, a score in [0, 1], and tests
// with name, description, points, max_points, message and output; a
// submission that does not build, or whose check ran out of its time
// bound, is not gradable, with the compiler's messages or why as
// format_errors; the whole document within PrairieLearn's
// 1 MB.
func TestPrairieLearnJSON(t *testing.T) {
	notBuilt := &grade.Result{Assignment: "A", MaxScore: 2, Checks: []grade.CheckResult{
		{Name: "one", MaxScore: 2, Status: grade.StatusNotBuilt, Message: "your program does not build:\nx.c:3: error"}}}
	unfinished := &grade.Result{Assignment: "A", MaxScore: 2, Checks: []grade.CheckResult{
		{Name: "one", MaxScore: 2, Status: grade.StatusUnfinished, Message: "the check did not finish within its time bound of 5m0s"}}}
	// PrairieLearn allows results.json 1 MB: a story of 3 MB is cut.
	long := sample()
	long.Checks[1].Failures[0].Story = []string{strings.Repeat("Thread 1 takes the lock m. ", 3<<20/27)}
	for _, tc := range []struct {
		name     string
		res      *grade.Result
		gradable bool
		score    float64
	}{{"graded", sample(), true, 0.6}, {"not built", notBuilt, false, 0}, {"too long", long, true, 0.6}, {"unfinished", unfinished, false, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "results.json")
			if err := tc.res.WriteFiles(grade.Outputs{PrairieLearn: path}); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > 1<<20 {
				t.Errorf("results.json takes %d bytes, more than PrairieLearn's 1 MB", len(b))
			}
			var doc map[string]any
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			known := map[string]bool{"gradable": true, "score": true, "message": true, "output": true, "images": true, "tests": true, "format_errors": true}
			for k := range doc {
				if !known[k] {
					t.Errorf("unknown key %q", k)
				}
			}
			if doc["gradable"] != tc.gradable || doc["score"] != tc.score {
				t.Errorf("gradable %v, score %v; want %v, %v", doc["gradable"], doc["score"], tc.gradable, tc.score)
			}
			if !tc.gradable {
				if fe, _ := doc["format_errors"].([]any); len(fe) == 0 || !strings.Contains(fe[0].(string), tc.res.Checks[0].Message) {
					t.Errorf("format_errors %v, want the compiler's messages", doc["format_errors"])
				}
			}
			tests, _ := doc["tests"].([]any)
			if len(tests) != len(tc.res.Checks) {
				t.Fatalf("tests %v", doc["tests"])
			}
			for i, x := range tests {
				test := x.(map[string]any)
				for _, k := range []string{"name", "description", "message", "output"} {
					if _, ok := test[k].(string); !ok {
						t.Errorf("test %d: %s missing or not a string", i, k)
					}
				}
				for _, k := range []string{"points", "max_points"} {
					if _, ok := test[k].(float64); !ok {
						t.Errorf("test %d: %s missing or not a number", i, k)
					}
				}
			}
		})
	}
}

// TestClassroomFiles checks the ready files for the classroom tools of
// exercises/classroom: the workflow gives the grading reporter the result
// of the step that grades, under the name it reads (RUNNER_RESULTS for a
// runner named runner), on the job whose check run the reporter updates;
// the PrairieLearn entrypoint is a valid shell script that writes
// /grade/results/results.json.
func TestClassroomFiles(t *testing.T) {
	b, err := os.ReadFile("../../exercises/classroom/github-classroom.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Name  string `yaml:"name"`
			Steps []struct {
				ID   string            `yaml:"id"`
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				Env  map[string]string `yaml:"env"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	job, ok := wf.Jobs["autograding"]
	if !ok || job.Name != "Autograding Tests" {
		t.Fatalf("no job named Autograding Tests: %+v", wf.Jobs)
	}
	grader, reported := "", false
	for _, st := range job.Steps {
		if strings.Contains(st.Run, "stdbg grade") && strings.Contains(st.Run, "--classroom") && strings.Contains(st.Run, "GITHUB_OUTPUT") {
			grader = st.ID
		}
		if strings.HasPrefix(st.Uses, "education/autograding-grading-reporter@") {
			runner := st.With["runners"]
			want := "${{ steps." + grader + ".outputs.result }}"
			reported = grader != "" && runner == grader && st.Env[strings.ToUpper(runner)+"_RESULTS"] == want
		}
	}
	if !reported {
		t.Errorf("the reporter does not get the result of the grading step %q", grader)
	}
	run := "../../exercises/classroom/prairielearn/run.sh"
	if out, err := exec.Command("sh", "-n", run).CombinedOutput(); err != nil {
		t.Errorf("%s: %v %s", run, err, out)
	}
	if b, err := os.ReadFile(run); err != nil || !strings.Contains(string(b), "--prairielearn /grade/results/results.json") {
		t.Errorf("%s does not write /grade/results/results.json: %v", run, err)
	}
}
