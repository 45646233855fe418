package gotest

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// TestPlainGoMaxStall checks the max-stall setting end to end on
// timeoutleak, whose leak needs the query's goroutine, awake and about to
// answer, kept from running 50ms while the 100ms deadline fires: a bound
// of 40ms finds nothing and says the search was exhaustive; the
// environment's 50ms finds the leak, the report names the stall, and the
// corpus entry records the bound, with which replay and corpus run
// reproduce it whatever the environment then says; the flag beats the
// environment and the replay command carries it; a bound that is not a
// duration is refused in one line.
func TestPlainGoMaxStall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program")
	}
	dir := filepath.Join(clirun.Root(), "examples", "go", "plain", "timeoutleak")
	out, errs, code := clirun.Stdbg(t, "find", "--races=false", "--max-stall", "40ms", dir)
	if code != cli.ExitClean || !strings.Contains(out, "exhaustive") {
		t.Fatalf("find --max-stall 40ms: exit %d\n%s\n%s", code, out, errs)
	}

	clirun.SettingKept(t, "STDBG_MAX_STALL=50ms", "0", []string{"--races=false", dir},
		[]string{"THREADS LEAKED", "timing: needs thread 1 to stall >= 50ms"}, "THREADS LEAKED")

	out, errs, code = clirun.Stdbg(t, "find", "--races=false", "--no-minimise", "--max-stall", "100ms", dir)
	if code != cli.ExitBug {
		t.Fatalf("find --max-stall 100ms: exit %d\n%s\n%s", code, out, errs)
	}
	m := regexp.MustCompile(`Replay: stdbg replay --schedule '([^']*)' --max-stall 100ms `).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no replay command with the bound in:\n%s", out)
	}
	out, errs, code = clirun.Stdbg(t, "replay", "--races=false", "--schedule", m[1], "--max-stall", "100ms", dir)
	if code != cli.ExitBug || !strings.Contains(out, "THREADS LEAKED") {
		t.Fatalf("replay --max-stall 100ms: exit %d\n%s\n%s", code, out, errs)
	}

	for _, bad := range []string{"-1ms", "soon"} {
		if _, errs, code := clirun.Stdbg(t, "find", "--max-stall", bad, dir); code != cli.ExitUsage || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("find --max-stall %s: exit %d, want %d with a one-line reason:\n%s", bad, code, cli.ExitUsage, errs)
		}
	}
}
