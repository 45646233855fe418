package corpusgrade

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
	"github.com/stdbg/stdbg/internal/testkit/shellwords"
)

func TestGradeCommand(t *testing.T) {
	asg := filepath.Join(clirun.Root(), "exercises", "c", "bounded-buffer", "assignment.yaml")
	ex := filepath.Dir(asg)
	tests := []struct {
		name   string
		sub    string
		status int
		out    string // in the feedback
	}{
		{"reference", filepath.Join(ex, "solution"), cli.ExitClean, "10/10 points"},
		{"wrong", filepath.Join(ex, "wrong", "if-wait"), cli.ExitBug, "guarded by `if`"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var stdout, stderr bytes.Buffer
			status := cli.Run([]string{"grade", "--out", dir, asg, tc.sub}, nil, &stdout, &stderr)
			if status != tc.status {
				t.Fatalf("status %d, want %d; stderr:\n%s", status, tc.status, stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.out) {
				t.Fatalf("feedback does not say %q:\n%s", tc.out, stdout.String())
			}
			var gs struct {
				Score float64 `json:"score"`
				Tests []struct {
					Name       string `json:"name"`
					Visibility string `json:"visibility"`
				} `json:"tests"`
			}
			b, err := os.ReadFile(filepath.Join(dir, "results.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &gs); err != nil || len(gs.Tests) != 3 {
				t.Fatalf("results.json: %v %s", err, b)
			}
			for _, f := range []string{"result.json", "feedback.txt"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Error(err)
				}
			}
			pages, _ := filepath.Glob(filepath.Join(dir, "*.html"))
			if (tc.status == cli.ExitBug) != (len(pages) > 0) {
				t.Errorf("HTML traces %v for status %d", pages, tc.status)
			}
		})
	}
}

func TestGradeBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("name: x\nlanguage: c\nsubmit: [a.c]\nchecks:\n  - name: a\n    kind: sometimes\n"), 0o644)
	unknown := filepath.Join(dir, "unknown.yaml")
	os.WriteFile(unknown, []byte("name: x\nlanguage: c\nsubmit: [a.c]\nchekcs: []\n"), 0o644)
	good := filepath.Join(clirun.Root(), "exercises", "c", "counter", "assignment.yaml")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing assignment", []string{"grade", filepath.Join(dir, "none.yaml"), dir}, "none.yaml"},
		{"unknown check kind", []string{"grade", bad, dir}, "line 5"},
		{"unknown key", []string{"grade", unknown, dir}, "line 4: field chekcs not found"},
		{"missing submission", []string{"grade", good, filepath.Join(dir, "nothing")}, "no such file or directory"},
		{"one argument", []string{"grade", good}, "accepts 2 arg"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.name)
			var stdout, stderr bytes.Buffer
			status := cli.Run(append(tc.args, "--json", filepath.Join(out, "r.json")), nil, &stdout, &stderr)
			if status != cli.ExitUsage {
				t.Fatalf("status %d, want 2; stderr: %s", status, stderr.String())
			}
			msg := strings.TrimSpace(stderr.String())
			if strings.Count(msg, "\n") > 0 || !strings.Contains(msg, tc.want) {
				t.Fatalf("stderr %q: want one line with %q", msg, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Fatalf("%s written on bad input", out)
			}
		})
	}
}

// TestGradeReplayCommands runs the replay command that stdbg grade gives
// for each failure, in a directory holding the student's file and the
// check's harness, as a student would: it must show the same failure. A
// C check built without the memory instrumentation says --memory=false (a
// source replayed with it has more scheduling points, its atomics, and the
// schedule would not fail); a race check replays as stdbg builds a source
// by default.
func TestGradeReplayCommands(t *testing.T) {
	ex := filepath.Join(clirun.Root(), "exercises", "c", "semaphore")
	tests := []struct {
		sub, check, harness, want string
	}{
		{"if-wait", "one thread at a time, the lock used correctly, no busy-waiting", "test_semaphore.c", "ASSERTION FAILED"},
		{"unlocked-up", "the value is protected (no data race)", "test_semaphore_race.c", "DATA RACE"},
	}
	for _, tc := range tests {
		t.Run(tc.sub, func(t *testing.T) {
			dir := t.TempDir()
			sub := filepath.Join(ex, "wrong", tc.sub)
			status := cli.Run([]string{"grade", "--json", filepath.Join(dir, "result.json"), filepath.Join(ex, "assignment.yaml"), sub}, nil, io.Discard, io.Discard)
			if status != cli.ExitBug {
				t.Fatalf("grade: status %d, want %d", status, cli.ExitBug)
			}
			var res struct {
				Checks []struct {
					Name     string
					Failures []struct{ Replay string }
				}
			}
			b, err := os.ReadFile(filepath.Join(dir, "result.json"))
			if err != nil || json.Unmarshal(b, &res) != nil {
				t.Fatalf("result.json: %v %s", err, b)
			}
			replay := ""
			for _, c := range res.Checks {
				if c.Name == tc.check && len(c.Failures) > 0 {
					replay = c.Failures[0].Replay
				}
			}
			if replay == "" {
				t.Fatalf("no failure of %q to replay: %s", tc.check, b)
			}
			work := filepath.Join(dir, "work")
			os.Mkdir(work, 0o755)
			for _, f := range []string{filepath.Join(sub, "semaphore.c"), filepath.Join(ex, tc.harness), filepath.Join(ex, "polls.h")} {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(filepath.Join(work, filepath.Base(f)), data, 0o644)
			}
			args, err := shellwords.Split(replay)
			if err != nil || len(args) < 3 || args[0] != "stdbg" || args[len(args)-1] != tc.harness {
				t.Fatalf("replay command %q", replay)
			}
			args[len(args)-1] = filepath.Join(work, tc.harness)
			out, errs, code := clirun.Stdbg(t, args[1:]...)
			if code != cli.ExitBug || !strings.Contains(out, tc.want) {
				t.Fatalf("%s: status %d, want %d and %s\n%s\n%s", replay, code, cli.ExitBug, tc.want, out, errs)
			}
		})
	}
}
