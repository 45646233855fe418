package grade_test

import (
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/grade"
)

func TestParseErrors(t *testing.T) {
	head := "name: x\nlanguage: c\nsubmit: [a.c]\n"
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown key", head + "checks:\n  - name: a\n    kind: no-bug\n    bugs: [deadlock]\n    pionts: 3\n", "line 8: field pionts not found"},
		{"unknown kind", head + "checks:\n  - name: a\n    kind: fast\n", "line 5: check \"a\": kind \"fast\""},
		{"unknown class", head + "checks:\n  - name: a\n    kind: no-bug\n    bugs: [starvation]\n", "line 5: check \"a\": bug class \"starvation\""},
		{"bad duration", head + "checks:\n  - name: a\n    kind: test\n    budget: soon\n", "line 7: \"soon\" is not a duration"},
		{"bad bound", head + "checks:\n  - name: a\n    kind: test\n    preemptions: -1\n", "line 5: check \"a\": preemptions"},
		{"bad formula", head + "checks:\n  - name: a\n    kind: ltl\n    formula: \"G (\"\n", "line 5: check \"a\": formula"},
		{"bounded ltl", head + "checks:\n  - name: a\n    kind: ltl\n    formula: \"G F p\"\n    preemptions: 1\n", "cannot be bounded"},
		{"no checks", head, "no checks"},
		{"bad language", "name: x\nlanguage: rust\nsubmit: [a.rs]\nchecks: []\n", "language \"rust\""},
		{"bad visibility", head + "checks:\n  - name: a\n    kind: test\n    visibility: secret\n", "visibility \"secret\""},
		{"path in submit", "name: x\nlanguage: c\nsubmit: [../a.c]\nchecks:\n  - name: a\n    kind: test\n", "not a plain file name"},
		{"run in c", head + "checks:\n  - name: a\n    kind: test\n    run: TestX\n", "run selects Go tests"},
		{"two names", head + "checks:\n  - name: a\n    kind: test\n  - name: a\n    kind: test\n", "line 7: check \"a\": two checks"},
		{"not yaml", "name: [x\n", "line"},
		{"ltl in go", "name: x\nlanguage: go\nsubmit: [a.go]\nchecks:\n  - name: a\n    kind: ltl\n    formula: \"G F p\"\n", "line 5: check \"a\": kind ltl: only C programs"},
		{"progress in go", "name: x\nlanguage: go\nsubmit: [a.go]\nchecks:\n  - name: a\n    kind: progress\n", "line 5: check \"a\": kind progress: only C"},
		{"negative minimisation", head + "checks:\n  - name: a\n    kind: test\n    minimise_executions: -1\n", "minimise_executions must not be negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := grade.Parse([]byte(tc.yaml))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q, want one line with %q", err, tc.want)
			}
		})
	}
}

func TestParseDefaults(t *testing.T) {
	a, err := grade.Parse([]byte("name: x\nlanguage: go\nsubmit: [a.go]\nchecks:\n  - name: a\n    kind: no-bug\n    bugs: [leak]\n    points: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c := a.Checks[0]; c.Visibility != "visible" || c.Points != 2 {
		t.Fatalf("check %+v: want visible, 2 points", c)
	}
}
