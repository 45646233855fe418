package gofind

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// oracleLine matches a test's line in stdbg test's output: its status,
// its name and what was said of it.
var oracleLine = regexp.MustCompile(`(?m)^(ok|BUG|incomplete|unjudged|SKIP|FAIL|ERROR) +(Test\w+) \([^)]*\): (.*)$`)

// oraclePlanted are the planted bugs of examples/go/plain/oracle: the
// report stdbg test must give each.
var oraclePlanted = map[string]string{
	"TestPlantedCounterRace":         "*** DATA RACE ***",
	"TestPlantedResultBeforeReceive": "*** DATA RACE ***",
	"TestPlantedLostUpdate":          "ASSERTION FAILED",
	"TestPlantedCheckThenClose":      "close of closed channel",
}

// TestOracleExamples judges stdbg test by real Go on
// examples/go/plain/oracle: go test -race passes its correct tests (50
// runs each, -cpu 1,2,4) and stdbg test, the race detector on, reports
// nothing in them (ok, or incomplete at the budget); go test -race shows
// each planted bug (at least once in 100 runs), and stdbg test reports it.
// The runs of go test -race, which judge the example, are made with
// -e2e.long (go test ./... runs the example's tests once, without the
// race detector; the planted bugs skip themselves there).
// TestBufferedWrapAround was reported as a data race of stdbg's own (its
// channel buffer moved with copy, which the race detector sees even in
// functions marked norace), TestMapRangeInWorkers and
// TestRandAndFmtInWorkers as races on the shared random generator.
func TestOracleExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go tests with the race detector")
	}
	dir := filepath.Join(clirun.Root(), "examples", "go", "plain", "oracle")
	goTest := func(zoo bool, args ...string) (string, error) {
		cmd := exec.Command("go", append([]string{"test", "-race"}, args...)...)
		cmd.Dir = dir
		cmd.Env = os.Environ()
		if zoo {
			cmd.Env = append(cmd.Env, "STDBG_ZOO=1")
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if clirun.Long() {
		if out, err := goTest(false, "-count=50", "-cpu", "1,2,4", "."); err != nil {
			t.Fatalf("go test -race fails on the correct tests: the example is wrong: %v\n%s", err, out)
		}
		for name := range oraclePlanted {
			if out, err := goTest(true, "-count=100", "-cpu", "1,2,4", "-run", "^"+name+"$", "."); err == nil {
				t.Errorf("go test -race does not show the bug of %s in 300 runs: the example is wrong\n%s", name, out)
			}
		}
		if t.Failed() {
			return
		}
	}
	t.Setenv("STDBG_ZOO", "1")
	t.Setenv("STDBG_TEST_CACHE", t.TempDir())
	out, errs, _ := clirun.Stdbg(t, "test", "-count=1", "--no-save", "--budget", "2s", dir)
	seen := map[string]bool{}
	for _, m := range oracleLine.FindAllStringSubmatch(out, -1) {
		status, name, said := m[1], m[2], m[3]
		seen[name] = true
		want, planted := oraclePlanted[name]
		switch {
		case planted && status != "BUG":
			t.Errorf("%s: %s, want its planted bug reported: %s", name, status, said)
		case planted && !strings.Contains(said, want) && !strings.Contains(out, want):
			t.Errorf("%s: %s, want %q", name, said, want)
		case !planted && status != "ok" && status != "incomplete":
			t.Errorf("%s, correct by construction: %s %s", name, status, said)
		}
	}
	for name := range oraclePlanted {
		if !seen[name] {
			t.Errorf("%s not run", name)
		}
	}
	if len(seen) < len(oraclePlanted)+12 {
		t.Errorf("%d tests run, want %d or more", len(seen), len(oraclePlanted)+12)
	}
	if t.Failed() {
		t.Logf("stdbg test:\n%s\n%s", out, errs)
	}
}
