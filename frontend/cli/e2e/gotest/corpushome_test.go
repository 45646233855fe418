package gotest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// One home per bug: find --run and stdbg test save the bug of a Go test in
// the same directory, testdata/stdbg/TestName in its package, and corpus
// list and run with no argument find it from the module's root, as ./...
// finds the package.
func TestGoTestCorpusHome(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	// The module the other tests share (its builds with them), left as
	// it was found: the corpus saved into it and the directory made
	// below are removed at the end.
	dir := sharedGoTestModule(t)
	t.Cleanup(func() {
		for _, p := range []string{filepath.Join(dir, "locks", "testdata"), filepath.Join(dir, "empty")} {
			if err := os.RemoveAll(p); err != nil {
				t.Error(err)
			}
		}
	})
	t.Setenv("STDBG_TEST_CACHE", t.TempDir())
	t.Chdir(dir)
	home := filepath.Join("locks", "testdata", "stdbg", "TestOrder") + string(filepath.Separator)
	out, errs, code := clirun.Stdbg(t, "find", "--races=false", "--no-save=false", "--run", "^TestOrder$", "./locks")
	if code != cli.ExitBug || !strings.Contains(out, "Saved "+home+"deadlock-") {
		t.Fatalf("find --run: exit %d, want %d and the bug saved under %s\n%s\n%s", code, cli.ExitBug, home, out, errs)
	}
	out, errs, code = clirun.Stdbg(t, "test", "--races=false", "--no-save=false", "-run", "^TestOrder$", "./locks")
	if code != cli.ExitBug || !strings.Contains(out, home+"deadlock-") {
		t.Fatalf("test: exit %d, want %d and the bug under %s\n%s\n%s", code, cli.ExitBug, home, out, errs)
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "testdata", "*"))
	if len(entries) != 0 {
		t.Errorf("find --run saved into the module's own testdata: %v", entries)
	}
	for _, args := range [][]string{{"corpus", "list"}, {"corpus", "run"}} {
		out, errs, code = clirun.Stdbg(t, args...)
		if code != cli.ExitBug && args[1] == "run" || code != cli.ExitClean && args[1] == "list" || !strings.Contains(out, home+"deadlock-") {
			t.Errorf("stdbg %s at the module's root: exit %d, and want %s listed\n%s\n%s", strings.Join(args, " "), code, home, out, errs)
		}
	}
	// A directory holding no corpus: a one-line usage error.
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(dir, "empty"))
	if out, errs, code := clirun.Stdbg(t, "corpus", "list"); code != cli.ExitUsage || !strings.Contains(errs, "no corpus under the current directory") {
		t.Errorf("corpus list with no corpus: exit %d, want %d\n%s\n%s", code, cli.ExitUsage, out, errs)
	}
}

// find --run matching no test says so as go test does, and which tests
// there are; as under go test, that is no error.
func TestFindRunNoTests(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	t.Chdir(sharedGoTestModule(t))
	out, errs, code := clirun.Stdbg(t, "find", "--run", "TestNothing", "./locks")
	if code != cli.ExitClean || !strings.Contains(out, "no tests to run: --run TestNothing matches no test of ./locks") ||
		!strings.Contains(errs, "its tests: TestOrder, TestOrderAgain") || strings.Contains(out+errs, "sthread") {
		t.Errorf("find --run TestNothing: exit %d, want %d, no tests to run\n%s\n%s", code, cli.ExitClean, out, errs)
	}
}
