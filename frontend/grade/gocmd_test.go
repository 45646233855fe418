package grade_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/grade"
)

// TestGoCommandsOfAGrading checks what the go command is asked while a Go
// submission with a data race is graded: its race check's search does not
// serve its other checks, so the submission is built twice, with and
// without the race detector, and both builds read one directory of its
// files, listed once (a second listing of the same files, and a second
// instrumentation, cost a grading half a CPU second).
func TestGoCommandsOfAGrading(t *testing.T) {
	if testing.Short() {
		t.Skip("grades a Go submission: seconds")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	// A go command that writes down its arguments, one run a line.
	bin := t.TempDir()
	log := filepath.Join(bin, "log")
	script := "#!/bin/sh\necho \"$*\" | head -c 200 | tr '\\n' ' ' >> " + log + "\necho >> " + log + "\nexec " + goBin + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	ex := filepath.Join("..", "..", "exercises", "go", "worker-pool")
	a, err := grade.Load(filepath.Join(ex, "assignment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := grade.Grade(context.Background(), a, filepath.Join(ex, "wrong", "each-worker-closes"), grade.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Score == res.MaxScore {
		t.Fatalf("full marks for a wrong answer with a data race")
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	runs := strings.Split(strings.TrimSpace(string(b)), "\n")
	count := func(prefix string) int {
		n := 0
		for _, r := range runs {
			if strings.HasPrefix(r, prefix) {
				n++
			}
		}
		return n
	}
	if n := count("build "); n != 2 {
		t.Errorf("%d go builds, want 2 (with and without the race detector)", n)
	}
	if n := count("list -deps "); n != 1 {
		t.Errorf("the submission's packages were listed %d times, want once", n)
	}
	if t.Failed() {
		t.Logf("the go commands run:\n%s", strings.Join(runs, "\n"))
	}
}
