package corpusgrade

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// TestGradeNotInstalled checks that stdbg grade says so when stdbg cannot
// build programs: STDBG_SOURCE names no source tree of stdbg's, or
// stdbg's cache directory cannot be made (under a file; no STDBG_CACHE and
// no home directory, as in a bare container). Exit status 2, the reason in
// the last line, nothing written, rather than a grade of 0 for a program
// that does not build.
func TestGradeNotInstalled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go exercise")
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		exercise string
		env      map[string]string
	}{
		{"STDBG_SOURCE elsewhere", "go/lazy-init", map[string]string{"STDBG_SOURCE": t.TempDir()}},
		{"cache under a file, Go", "go/lazy-init", map[string]string{"STDBG_CACHE": filepath.Join(file, "cache")}},
		{"cache under a file, C", "c/readers-writers", map[string]string{"STDBG_CACHE": filepath.Join(file, "cache")}},
		{"no cache and no home", "c/readers-writers", map[string]string{"STDBG_CACHE": "", "HOME": "", "XDG_CACHE_HOME": ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			ex := filepath.Join(clirun.Root(), "exercises", filepath.FromSlash(tc.exercise))
			out := filepath.Join(t.TempDir(), "out")
			var stdout, stderr bytes.Buffer
			status := cli.Run([]string{"grade", "--out", out, filepath.Join(ex, "assignment.yaml"), filepath.Join(ex, "solution")}, nil, &stdout, &stderr)
			msg := strings.TrimSpace(stderr.String())
			if status != cli.ExitUsage || !strings.Contains(msg, "stdbg is not installed correctly") {
				t.Fatalf("status %d, want %d, saying stdbg is not installed correctly; stdout:\n%s\nstderr:\n%s", status, cli.ExitUsage, stdout.String(), msg)
			}
			last := msg[strings.LastIndexByte(msg, '\n')+1:]
			if !strings.Contains(last, "stdbg is not installed correctly") {
				t.Errorf("the last line of stderr does not say it: %q", last)
			}
			if strings.Contains(stdout.String(), "points") {
				t.Errorf("a grade was printed:\n%s", stdout.String())
			}
			if ents, _ := os.ReadDir(out); len(ents) > 0 {
				t.Errorf("%s written: %v", out, ents)
			}
		})
	}
}

// TestToolchainLocal checks a module that needs a newer Go than the local
// one while GOTOOLCHAIN=local forbids the go command to fetch it: stdbg
// test and stdbg find fail in one line, with exit status 2, naming the
// command that lets the go command fetch it.
func TestToolchainLocal(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":    "module example.com/future\n\ngo 1.99.0\n",
		"f_test.go": "package future\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) {}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("GOTOOLCHAIN", "local")
	t.Chdir(dir)
	for _, args := range [][]string{{"test", "./..."}, {"find", "-run", "TestF", "."}} {
		var stdout, stderr bytes.Buffer
		status := cli.Run(args, nil, &stdout, &stderr)
		msg := strings.TrimSpace(stderr.String())
		want := "GOTOOLCHAIN=auto stdbg " + strings.Join(args, " ") + " lets the go command fetch Go 1.99.0"
		if status != cli.ExitUsage || strings.Contains(msg, "\n") || !strings.Contains(msg, want) {
			t.Errorf("stdbg %s: status %d, want %d and one line with %q; stderr:\n%s", strings.Join(args, " "), status, cli.ExitUsage, want, msg)
		}
	}
}
