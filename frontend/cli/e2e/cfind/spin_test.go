package cfind

import (
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// TestFindSpinLoops: what stdbg find says of spin loops, with its default
// search (docs/spin.md): a correct test-and-set lock is exhausted; a spin
// nothing can end is a livelock that names the thread, where it spins and
// the variable it waits for a write to; and when executions are cut by the
// depth bound in a loop the checker cannot prove changes nothing (a poll
// of a pipe), the verdict names the thread, what its loop does and where,
// and the flags that may end it (a Go test's poll against the clock:
// e2e/gofind's TestFindGoPollDeadline, where Go's builds are made anyway).
func TestFindSpinLoops(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles C programs")
	}
	t.Parallel()
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"test-and-set lock", []string{"find", clirun.Example("spin/tas-lock.c")}, cli.ExitClean,
			[]string{"No property violation found.", "Search: exhaustive"}},
		{"a spin for ever", []string{"find", "--no-minimise", clirun.Example("spin/spin-forever.c")}, cli.ExitBug,
			[]string{"*** LIVELOCK: NO PROGRESS ***", "thread 1 spins at spin-forever.c:29 waiting for a write to go",
				"thread 1 spins in __atomic_load waiting for a write to go, which no thread left can make"}},
		{"a poll of a pipe", []string{"find", "--max-depth", "200", "--executions", "50", clirun.Example("spin/pipe-poll.c")}, cli.ExitClean,
			[]string{"/!\\ Max depth reached ! /!\\", "The first execution cut was looping:",
				"thread 1 yields at pipe-poll.c:40", "--visited", "--max-depth above 200"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := clirun.Stdbg(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
