package cfind

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// A bug is reported as found, then minimised: its report with the Path
// found comes first (saved, with its replay), then the minimised report,
// with its Path, saved in place of the first. The line that announces the
// bug on stderr names no schedule then; the JSON, written at the end, has
// the minimised Path and the one the search found, and the announcement
// the schedule found. (DPOR alone: in the
// portfolio, which strategy finds the bug first depends on the machine's
// pace.)
func TestReportFirstThenMinimised(t *testing.T) {
	t.Parallel()
	corpusDir := t.TempDir()
	out, errs, code := clirun.Stdbg(t, "find", "--strategy", "dfs", "--no-save=false", "--corpus", corpusDir, clirun.Example("deadly-embrace.c"))
	if code != cli.ExitBug {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	paths := regexp.MustCompile(`Path = (\S+)`).FindAllStringSubmatch(out+errs, -1)
	if len(paths) != 2 || paths[0][1] != "1;1;1;1;1;1;2;2" || paths[1][1] != "1;1;2;2" {
		t.Fatalf("Paths %q, want the one found then the minimised one:\nstdout:\n%s\nstderr:\n%s", paths, out, errs)
	}
	found, minimised, _ := strings.Cut(out, "Minimised:\n")
	if !strings.Contains(found, "Minimising its schedule of 8 steps for at most ") ||
		!strings.Contains(minimised, "Minimised from 8 steps") || !strings.Contains(minimised, " (in place of ") {
		t.Errorf("want the report as found, saved, then the minimised one saved in its place:\n%s", out)
	}
	saved := regexp.MustCompile(`Saved (\S+\.json)`).FindAllStringSubmatch(out, -1)
	entries, _ := filepath.Glob(filepath.Join(corpusDir, "*.json"))
	if len(saved) != 2 || len(entries) != 1 || entries[0] != saved[1][1] || !strings.Contains(out, "(in place of "+saved[0][1]+")") {
		t.Errorf("saved %q, the corpus holds %q: want one entry, the minimised one, in place of the first", saved, entries)
	}
	if !strings.Contains(errs, "bug found (deadlock)") {
		t.Errorf("no announcement on stderr:\n%s", errs)
	}
	js, jerrs, _ := clirun.Stdbg(t, "find", "--strategy", "dfs", "--json", "--no-save", clirun.Example("deadly-embrace.c"))
	if !strings.Contains(js, `"path": "1;1;2;2"`) || !strings.Contains(js, `"original": "1;1;1;1;1;1;2;2"`) {
		t.Errorf("the JSON lacks the minimised path or the original:\n%s", js)
	}
	// The JSON comes at the end: the schedule found is told on stderr at
	// once.
	if !strings.Contains(jerrs, "Path = 1;1;1;1;1;1;2;2 (replay: ") {
		t.Errorf("with --json, the bug is not announced with its schedule:\n%s", jerrs)
	}
}

// --budget bounds an execution too: a program whose first execution never
// ends (two threads that yield until a flag no one sets, under a depth
// bound it never reaches) stops at the budget, says that it cut the
// execution under way, and reports the wall time it spent.
func TestBudgetCutsAnExecution(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "forever.c")
	// (Each thread counts its turns: a loop whose turns change nothing
	// would wait for a write to stop, and end as a livelock.)
	prog := `#include <pthread.h>
#include <sched.h>
static volatile int stop;
static void *spin(void *arg) { (void)arg; for (volatile long turns = 0; !stop; turns++) sched_yield(); return 0; }
int main(void) { pthread_t t; pthread_create(&t, 0, spin, 0); spin(0); return 0; }
`
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	type result struct {
		out, errs string
		code      int
	}
	done := make(chan result, 1)
	go func() {
		// A budget of a few seconds: a busy machine may take a good part
		// of a second to start the program, and the execution must be
		// under way when the budget ends.
		out, errs, code := clirun.Stdbg(t, "find", "--no-save", "--max-depth", "1000000000", "--budget", "3s", src)
		done <- result{out, errs, code}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("find --budget 3s still searching after 2 minutes")
	}
	if r.code != 0 || !strings.Contains(r.out, "budget of 3s spent (the execution under way was cut after ") {
		t.Fatalf("exit %d, want 0 and the cut said:\n%s\n%s", r.code, r.out, r.errs)
	}
	m := regexp.MustCompile(`Executions = 1 .*\((\d+\.\d+) s\)`).FindStringSubmatch(r.out)
	if m == nil {
		t.Fatalf("no statistics line for one execution:\n%s", r.out)
	}
	// The search stopped only when its share of the budget (four fifths)
	// was spent: the wall time shown is at least that.
	if secs, _ := strconv.ParseFloat(m[1], 64); secs < 2.39 {
		t.Errorf("the statistics say %s s, less than the 2.4 s the search spent", m[1])
	}
}
