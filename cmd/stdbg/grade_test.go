package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGradeCommand(t *testing.T) {
	asg := filepath.Join("..", "..", "exercises", "c", "bounded-buffer", "assignment.yaml")
	ex := filepath.Dir(asg)
	tests := []struct {
		name   string
		sub    string
		status int
		out    string // in the feedback
	}{
		{"reference", filepath.Join(ex, "solution"), exitClean, "10/10 points"},
		{"wrong", filepath.Join(ex, "wrong", "if-wait"), exitBug, "guarded by `if`"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var stdout, stderr bytes.Buffer
			status := run([]string{"grade", "--out", dir, asg, tc.sub}, &stdout, &stderr)
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
			if err := json.Unmarshal(b, &gs); err != nil || len(gs.Tests) != 2 {
				t.Fatalf("results.json: %v %s", err, b)
			}
			for _, f := range []string{"result.json", "feedback.txt"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Error(err)
				}
			}
			pages, _ := filepath.Glob(filepath.Join(dir, "*.html"))
			if (tc.status == exitBug) != (len(pages) > 0) {
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
	good := filepath.Join("..", "..", "exercises", "c", "counter", "assignment.yaml")
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
			status := run(append(tc.args, "--json", filepath.Join(out, "r.json")), &stdout, &stderr)
			if status != exitUsage {
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
