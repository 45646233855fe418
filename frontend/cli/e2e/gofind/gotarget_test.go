package gofind

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// TestGoProgram checks a Go program out of process: built with go build,
// one process per execution, the same checker, report and replay as C.
func TestGoProgram(t *testing.T) {
	t.Parallel()
	prog := filepath.Join(clirun.Root(), "examples", "go", "embrace-prog")
	out, errs, code := clirun.Stdbg(t, "find", prog)
	if code != cli.ExitBug {
		t.Fatalf("find: exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"*** DEADLOCK DETECTED ***",
		"Path = 1;1;2;2\n",
		"thread 1  go -> thread 2",
		"thread 2  thread starts",
		"main.go:",
		"waits in Mutex.Lock for",
		"Replay: stdbg replay --schedule '1;1;2;2' ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("find output lacks %q:\n%s", want, out)
		}
	}
	out, errs, code = clirun.Stdbg(t, "replay", "--schedule", "1;1;2;2", prog)
	if code != cli.ExitBug || !strings.Contains(out, "*** DEADLOCK DETECTED ***") {
		t.Fatalf("replay: exit %d\n%s\n%s", code, out, errs)
	}
	out, _, code = clirun.Stdbg(t, "replay", "--schedule", "1;1;1;1;1", prog)
	if code != cli.ExitClean || !strings.Contains(out, "done 2\n") {
		t.Fatalf("clean replay: exit %d\n%s", code, out)
	}
}

// TestGoTests checks a package's tests: find --run builds the test binary
// and each execution runs the selected test's sthread.Check once.
func TestGoTests(t *testing.T) {
	t.Parallel()
	pkg := filepath.Join(clirun.Root(), "examples", "go", "embrace-test")
	out, errs, code := clirun.Stdbg(t, "find", "-run", "TestEmbrace", pkg)
	if code != cli.ExitBug || !strings.Contains(out, "*** DEADLOCK DETECTED ***") || !strings.Contains(out, "embrace_test.go:") ||
		!strings.Contains(out, "--run TestEmbrace") {
		t.Fatalf("find -run: exit %d\n%s\n%s", code, out, errs)
	}
	_, errs, code = clirun.Stdbg(t, "find", "--run", "TestEmbrace", clirun.Example("deadly-embrace.c"))
	if code != cli.ExitUsage || !strings.Contains(errs, "not a Go package") {
		t.Fatalf("--run on C: %d %q", code, errs)
	}
}

// Go written with sthread as users write it: a main that does not call
// sthread.Run is run inside it; a test that searches on its own with
// sthread.Explore gets a message saying what to do instead.
func TestGoWithoutRunOrCheck(t *testing.T) {
	t.Parallel()
	prog := filepath.Join(clirun.Root(), "examples", "go", "norun-prog")
	out, errs, code := clirun.Stdbg(t, "find", prog)
	if code != cli.ExitBug || !strings.Contains(out, "*** DEADLOCK DETECTED ***") || !strings.Contains(out, "Path = 1;1;2;2\n") ||
		!strings.Contains(errs+out, "main does not call sthread.Run") {
		t.Fatalf("find on a main without Run: exit %d\n%s\n%s", code, out, errs)
	}
	pkg := filepath.Join(clirun.Root(), "examples", "go", "explore-test")
	_, errs, code = clirun.Stdbg(t, "find", "--run", "TestExplore", pkg)
	if code != cli.ExitUsage || !strings.Contains(errs, "must call sthread.Check(t, f)") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Fatalf("find on a test calling Explore: exit %d %q", code, errs)
	}
}

// TestGoProgramSelect checks a select out of process: the worker leaked
// after the caller took the timeout case.
func TestGoProgramSelect(t *testing.T) {
	t.Parallel()
	prog := filepath.Join(clirun.Root(), "examples", "go", "leak-prog")
	out, errs, code := clirun.Stdbg(t, "find", prog)
	if code != cli.ExitBug || !strings.Contains(out, "THREADS LEAKED") || !strings.Contains(out, "Select(") ||
		!strings.Contains(out, "waits in Chan.Send for") || !strings.Contains(out, "main.go:17") {
		t.Fatalf("find: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestGoCorpus stores Go bugs found by find and reruns them.
func TestGoCorpus(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"find", "--no-save=false", "--corpus", dir, filepath.Join(clirun.Root(), "examples", "go", "embrace-prog")},
		{"find", "--no-save=false", "--corpus", dir, "-run", "TestEmbrace", filepath.Join(clirun.Root(), "examples", "go", "embrace-test")},
	} {
		if out, errs, code := clirun.Stdbg(t, args...); code != cli.ExitBug || !strings.Contains(out, "Saved ") {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, errs)
		}
	}
	out, errs, code := clirun.Stdbg(t, "corpus", "run", dir)
	if code != cli.ExitBug || strings.Count(out, "REPRODUCES") != 2 {
		t.Fatalf("corpus run: exit %d\n%s\n%s", code, out, errs)
	}
}
