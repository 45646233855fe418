package cfind

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

func TestFindDeadlyEmbrace(t *testing.T) {
	t.Parallel()
	out, errs, code := clirun.Stdbg(t, "find", clirun.Example("deadly-embrace.c"))
	if code != cli.ExitBug {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, cli.ExitBug, out, errs)
	}
	for _, want := range []string{
		"*** DEADLOCK DETECTED ***",
		"Path = ",
		"thread 1  pthread_create -> thread 2",
		"pthread_mutex_lock(first)",
		"deadly-embrace.c:",
		"waits in pthread_mutex_lock for second (held by thread 2)",
		"waits in pthread_mutex_lock for first (held by thread 1)",
		"Executions = ",
		"Replay: stdbg replay --schedule '",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestFindDepthBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		code     int
		contains string
	}{
		{"depth 1 finds nothing", []string{"find", "--max-depth", "1", clirun.Example("deadly-embrace.c")}, cli.ExitClean, "No property violation found."},
		{"depth 3 is one step short", []string{"find", "--max-depth", "3", clirun.Example("deadly-embrace.c")}, cli.ExitClean, "No property violation found."},
		{"depth 4 finds the shortest", []string{"find", "--max-depth", "4", clirun.Example("deadly-embrace.c")}, cli.ExitBug, "Path = 1;1;2;2\n"},
		{"paper spelling", []string{"find", "--cfg=model-check/max-depth:4", clirun.Example("deadly-embrace.c")}, cli.ExitBug, "Path = 1;1;2;2\n"},
		{"paper spelling, separate", []string{"find", "--cfg", "model-check/max-depth:1", clirun.Example("deadly-embrace.c")}, cli.ExitClean, "Max depth reached"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := clirun.Stdbg(t, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.contains) {
				t.Fatalf("exit %d (want %d), output lacks %q?\n%s\n%s", code, tt.code, tt.contains, out, errs)
			}
		})
	}
}

func TestFindJSON(t *testing.T) {
	t.Parallel()
	out, _, code := clirun.Stdbg(t, "find", "--json", "--max-depth", "4", clirun.Example("deadly-embrace.c"))
	if code != cli.ExitBug {
		t.Fatalf("exit %d", code)
	}
	var doc struct {
		Bugs []struct {
			Kind  string
			Path  string
			Steps []struct {
				Thread int
				Call   string
				Where  struct {
					File string
					Line int
				}
			}
			Waits []struct{ Thread int }
		}
		Stats struct{ Executions int }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(doc.Bugs) != 1 || doc.Bugs[0].Kind != "deadlock" || doc.Bugs[0].Path != "1;1;2;2" {
		t.Fatalf("bugs = %+v", doc.Bugs)
	}
	b := doc.Bugs[0]
	if len(b.Steps) != 4 || b.Steps[3].Thread != 2 || !strings.HasSuffix(b.Steps[3].Where.File, "deadly-embrace.c") || b.Steps[3].Where.Line == 0 {
		t.Errorf("steps = %+v", b.Steps)
	}
	if len(b.Waits) != 2 || doc.Stats.Executions < 1 {
		t.Errorf("waits = %+v, stats = %+v", b.Waits, doc.Stats)
	}
}

func TestReplay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		sched    string
		code     int
		contains []string
	}{
		{"reproduces the deadlock", "1;1;2;2", cli.ExitBug, []string{"*** DEADLOCK DETECTED ***", "Path = 1;1;2;2", "step 3  thread 2  thread starts", "step 4  thread 2  pthread_mutex_lock(second)"}},
		{"copied Path line", "Path = 1;1;2;2", cli.ExitBug, []string{"*** DEADLOCK DETECTED ***"}},
		{"clean schedule", "1;1;1;1;1;1;1", cli.ExitClean, []string{"No property violation found.", "4 transfers"}},
		{"nonexistent thread", "1;3", cli.ExitUsage, []string{"*** SCHEDULE DIVERGED ***", "step 2: thread 3 does not exist"}},
		{"blocked thread", "1;1;1;2;2", cli.ExitUsage, []string{"step 5: thread 2 cannot run: it is blocked in"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := clirun.Stdbg(t, "replay", "--schedule", tt.sched, clirun.Example("deadly-embrace.c"))
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tt.code, out, errs)
			}
			for _, w := range tt.contains {
				if !strings.Contains(out+errs, w) {
					t.Errorf("output lacks %q:\n%s\n%s", w, out, errs)
				}
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notExec := filepath.Join(dir, "data.txt")
	os.WriteFile(notExec, []byte("hello"), 0o644)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no program", []string{"find"}, "requires at least 1 arg"},
		{"missing file", []string{"find", filepath.Join(dir, "nope.c")}, "no such file"},
		{"not executable", []string{"find", notExec}, "not executable"},
		{"bad depth", []string{"find", "--max-depth", "0", clirun.Example("deadly-embrace.c")}, "max-depth must be at least 1"},
		{"bad reduction", []string{"find", "--reduction", "magic", clirun.Example("deadly-embrace.c")}, "unknown reduction"},
		{"unknown flag", []string{"find", "--frobnicate", clirun.Example("deadly-embrace.c")}, "unknown flag"},
		{"bad cfg", []string{"find", "--cfg=nonsense", clirun.Example("deadly-embrace.c")}, "expected SECTION/KEY:VALUE"},
		{"bad schedule", []string{"replay", "--schedule", "1;x", clirun.Example("deadly-embrace.c")}, "thread id must be a positive integer"},
		{"replay without schedule", []string{"replay", clirun.Example("deadly-embrace.c")}, "replay needs a corpus entry (.json) or --schedule"},
		{"compile error", []string{"find", clirun.WriteFile(t, dir, "broken.c", "int main(void) { return }\n")}, "compiling"},
		{"missing config", []string{"find", "--config", filepath.Join(dir, "none.yaml"), clirun.Example("deadly-embrace.c")}, "config file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := clirun.Stdbg(t, tt.args...)
			if code != cli.ExitUsage {
				t.Fatalf("exit %d, want 2\n%s\n%s", code, out, errs)
			}
			if !strings.HasPrefix(errs, "stdbg: ") || !strings.Contains(errs, tt.want) {
				t.Errorf("stderr %q lacks %q", errs, tt.want)
			}
		})
	}
}

func TestStaticBinaryRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := clirun.WriteFile(t, dir, "s.c", "int main(void) { return 0; }\n")
	exe := filepath.Join(dir, "s")
	if out, err := exec.Command("cc", "-static", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("cannot build a static binary: %v\n%s", err, out)
	}
	_, errs, code := clirun.Stdbg(t, "find", exe)
	if code != cli.ExitUsage || !strings.Contains(errs, "statically linked") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

func TestConfigDrivesFind(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := clirun.WriteFile(t, dir, "custom.yaml", "max-depth: 1\n")
	out, _, code := clirun.Stdbg(t, "find", "--config", cfg, clirun.Example("deadly-embrace.c"))
	if code != cli.ExitClean || !strings.Contains(out, "No property violation found.") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

func TestCC(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := clirun.WriteFile(t, dir, "ann.c", `#include <stdbg.h>
#include <stdio.h>
int main(void) {
	stdbg_yield();
	int v = stdbg_choose(3);
	stdbg_assert(v == 0, "without stdbg, choose returns 0");
	printf("ok %d\n", v);
	return 0;
}
`)
	exe := filepath.Join(dir, "ann")
	out, errs, code := clirun.Stdbg(t, "cc", "-o", exe, src)
	if code != 0 {
		t.Fatalf("cc failed: %d\n%s\n%s", code, out, errs)
	}
	got, err := exec.Command(exe).CombinedOutput()
	if err != nil || string(got) != "ok 0\n" {
		t.Fatalf("program without stdbg: %v %q", err, got)
	}
	_, errs, code = clirun.Stdbg(t, "cc")
	if code != cli.ExitUsage || !strings.Contains(errs, "cc needs compiler arguments") {
		t.Fatalf("empty cc: %d %q", code, errs)
	}
}

// A search that is exhaustive over thread operations says that plain
// memory accesses were not scheduling points: two threads doing x++ on a
// global without a lock pass, and the verdict must not read as a proof.
func TestVerdictSaysMemoryIsNotScheduled(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "lost-update.c")
	prog := `#include <assert.h>
#include <pthread.h>
static int x;
static void *add(void *a) { (void)a; x++; return 0; }
int main(void) {
	pthread_t t;
	pthread_create(&t, 0, add, 0);
	x++;
	pthread_join(t, 0);
	assert(x == 2);
	return 0;
}
`
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := clirun.Stdbg(t, "find", "--memory=false", "--quiet", src)
	if code != cli.ExitClean || !strings.Contains(out, "Search: exhaustive") ||
		!strings.Contains(out, "Scope: thread operations; plain memory accesses were not scheduling points") {
		t.Fatalf("find: exit %d %s\n%s", code, errs, out)
	}
	out, _, _ = clirun.Stdbg(t, "find", "--memory=false", "--quiet", "--json", src)
	var res struct {
		Complete     bool   `json:"complete"`
		MemoryPoints *bool  `json:"memory_scheduling_points"`
		Scope        string `json:"scope"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || !res.Complete || res.MemoryPoints == nil || *res.MemoryPoints || res.Scope != "thread operations" {
		t.Fatalf("JSON %+v (%v):\n%s", res, err, out)
	}
}
