package grade_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stdbg/stdbg/grade"
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
	if err := sample().WriteFiles(dir, "", ""); err != nil {
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
