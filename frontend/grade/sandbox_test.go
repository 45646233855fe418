package grade_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/grade"
)

var gradeSandbox = flag.Bool("grade.sandbox", false, "grade the hostile submissions of testdata/hostile (a minute)")

// TestHostileSubmissions grades submissions that fork without end,
// allocate without end, spin, or delete a file outside their directory:
// each gets zero for the checks it spoils, with a message that says why,
// and the grading goes on to the next check.
func TestHostileSubmissions(t *testing.T) {
	if !*gradeAll && !*gradeSandbox {
		t.Skip("runs hostile programs for a minute: -grade.sandbox or -grade.all")
	}
	conf := grade.Probe()
	if !conf.Limits || conf.User < 0 {
		// Without limits and a user of its own, a fork bomb is a fork
		// bomb of the machine.
		t.Skipf("the machine cannot confine a submission (%v)", conf.Missing)
	}
	a, err := grade.Load("testdata/hostile/assignment.yaml")
	if err != nil {
		t.Fatal(err)
	}
	canary := filepath.Join(t.TempDir(), "canary")
	if err := os.WriteFile(canary, []byte("keep me"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(canary), 0o755); err != nil {
		t.Fatal(err)
	}
	remove := t.TempDir()
	src := "#include <stdio.h>\n#include <unistd.h>\nstatic void work(void)\n{\n\tremove(\"" + canary + "\");\n\tunlink(\"" + canary + "\");\n}\n"
	if err := os.WriteFile(filepath.Join(remove, "prog.c"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir string
		score     float64 // at most
		message   string  // in the feedback of a spoiled check
	}{
		{"forkbomb", "testdata/hostile/forkbomb", 0, ""},
		// Out of memory in every schedule: the assertion check fails;
		// the deadlock check may run out of its budget first.
		{"alloc", "testdata/hostile/alloc", 1, "out of memory"},
		{"spin", "testdata/hostile/spin", 0, "Endless loop"},
		{"remove", remove, 2, ""},
		{"fine", "testdata/hostile/fine", 2, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := grade.Grade(context.Background(), a, tc.dir, grade.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			res.WriteText(&b)
			if len(res.Checks) != len(a.Checks) {
				t.Fatalf("%d checks graded, want %d:\n%s", len(res.Checks), len(a.Checks), b.String())
			}
			if res.Score > tc.score || tc.score == 2 && res.Score != 2 {
				t.Errorf("score %g, want %g:\n%s", res.Score, tc.score, b.String())
			}
			if tc.message != "" && !strings.Contains(b.String(), tc.message) {
				t.Errorf("feedback does not say %q:\n%s", tc.message, b.String())
			}
			for _, c := range res.Checks {
				if c.Status != grade.StatusPassed && c.Message == "" && len(c.Failures) == 0 {
					t.Errorf("check %q failed without saying why", c.Name)
				}
			}
		})
	}
	if b, err := os.ReadFile(canary); err != nil || string(b) != "keep me" {
		t.Errorf("the submission deleted or changed a file outside its directory: %v", err)
	}
}
