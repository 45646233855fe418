package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/frontend/session"
)

var cacheDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "stdbg-cli-test-")
	if err != nil {
		panic(err)
	}
	cacheDir = dir
	os.Setenv("STDBG_CACHE", dir)
	// Tests never write corpora into the repository; those that test the
	// corpus pass --no-save=false with their own directories.
	os.Setenv("STDBG_NO_SAVE", "1")
	// The tests resolve the same example packages again and again: each
	// is built once while its files stay the same.
	session.ShareBuilds(true)
	for _, k := range []string{"STDBG_MAX_DEPTH", "STDBG_ALL", "STDBG_JSON", "STDBG_TRANSITION_TIMEOUT"} {
		os.Unsetenv(k)
	}
	// The plain progress lines of long searches would mix with the stderr
	// tests check; TestProgressWithoutTerminal asks for them.
	plainEvery = time.Hour
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func example(name string) string {
	return filepath.Join("..", "..", "examples", "c", name)
}

// stdbg runs the command line in-process and returns stdout, stderr and
// the exit status.
func stdbg(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return stdbgInput(t, nil, args...)
}

// stdbgInput is stdbg with stdin.
func stdbgInput(t *testing.T, stdin io.Reader, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(args, stdin, &out, &errb)
	return out.String(), errb.String(), code
}

func TestFindDeadlyEmbrace(t *testing.T) {
	t.Parallel()
	out, errs, code := stdbg(t, "find", example("deadly-embrace.c"))
	if code != exitBug {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitBug, out, errs)
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
		{"depth 1 finds nothing", []string{"find", "--max-depth", "1", example("deadly-embrace.c")}, exitClean, "No property violation found."},
		{"depth 3 is one step short", []string{"find", "--max-depth", "3", example("deadly-embrace.c")}, exitClean, "No property violation found."},
		{"depth 4 finds the shortest", []string{"find", "--max-depth", "4", example("deadly-embrace.c")}, exitBug, "Path = 1;1;2;2\n"},
		{"paper spelling", []string{"find", "--cfg=model-check/max-depth:4", example("deadly-embrace.c")}, exitBug, "Path = 1;1;2;2\n"},
		{"paper spelling, separate", []string{"find", "--cfg", "model-check/max-depth:1", example("deadly-embrace.c")}, exitClean, "Max depth reached"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := stdbg(t, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.contains) {
				t.Fatalf("exit %d (want %d), output lacks %q?\n%s\n%s", code, tt.code, tt.contains, out, errs)
			}
		})
	}
}

func TestFindJSON(t *testing.T) {
	t.Parallel()
	out, _, code := stdbg(t, "find", "--json", "--max-depth", "4", example("deadly-embrace.c"))
	if code != exitBug {
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
		{"reproduces the deadlock", "1;1;2;2", exitBug, []string{"*** DEADLOCK DETECTED ***", "Path = 1;1;2;2", "step 3  thread 2  thread starts", "step 4  thread 2  pthread_mutex_lock(second)"}},
		{"copied Path line", "Path = 1;1;2;2", exitBug, []string{"*** DEADLOCK DETECTED ***"}},
		{"clean schedule", "1;1;1;1;1;1;1", exitClean, []string{"No property violation found.", "4 transfers"}},
		{"nonexistent thread", "1;3", exitUsage, []string{"*** SCHEDULE DIVERGED ***", "step 2: thread 3 does not exist"}},
		{"blocked thread", "1;1;1;2;2", exitUsage, []string{"step 5: thread 2 cannot run: it is blocked in"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := stdbg(t, "replay", "--schedule", tt.sched, example("deadly-embrace.c"))
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
		{"bad depth", []string{"find", "--max-depth", "0", example("deadly-embrace.c")}, "max-depth must be at least 1"},
		{"bad reduction", []string{"find", "--reduction", "magic", example("deadly-embrace.c")}, "unknown reduction"},
		{"unknown flag", []string{"find", "--frobnicate", example("deadly-embrace.c")}, "unknown flag"},
		{"bad cfg", []string{"find", "--cfg=nonsense", example("deadly-embrace.c")}, "expected SECTION/KEY:VALUE"},
		{"bad schedule", []string{"replay", "--schedule", "1;x", example("deadly-embrace.c")}, "thread id must be a positive integer"},
		{"replay without schedule", []string{"replay", example("deadly-embrace.c")}, "replay needs a corpus entry (.json) or --schedule"},
		{"compile error", []string{"find", writeFile(t, dir, "broken.c", "int main(void) { return }\n")}, "compiling"},
		{"missing config", []string{"find", "--config", filepath.Join(dir, "none.yaml"), example("deadly-embrace.c")}, "config file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := stdbg(t, tt.args...)
			if code != exitUsage {
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
	src := writeFile(t, dir, "s.c", "int main(void) { return 0; }\n")
	exe := filepath.Join(dir, "s")
	if out, err := exec.Command("cc", "-static", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("cannot build a static binary: %v\n%s", err, out)
	}
	_, errs, code := stdbg(t, "find", exe)
	if code != exitUsage || !strings.Contains(errs, "statically linked") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "stdbg.yaml", "max-depth: 7\nall: true\n")
	sub := filepath.Join(dir, "a", "b")
	os.MkdirAll(sub, 0o755)
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	if err := os.Chdir(sub); err != nil {
		t.Fatal(err)
	}
	out, _, code := stdbg(t, "config")
	if code != 0 || !strings.Contains(out, "max-depth") || !strings.Contains(out, "= 7") || !strings.Contains(out, "file "+filepath.Join(dir, "stdbg.yaml")) {
		t.Fatalf("file not used:\n%s", out)
	}
	t.Setenv("STDBG_MAX_DEPTH", "9")
	out, _, _ = stdbg(t, "config")
	if !strings.Contains(out, "= 9") || !strings.Contains(out, "environment STDBG_MAX_DEPTH") {
		t.Fatalf("environment does not beat the file:\n%s", out)
	}
	out, _, _ = stdbg(t, "config", "--max-depth", "11")
	if !strings.Contains(out, "= 11") || !strings.Contains(out, "flag --max-depth") {
		t.Fatalf("flag does not beat the environment:\n%s", out)
	}
	out, _, _ = stdbg(t, "config", "--cfg=model-check/max-depth:12")
	if !strings.Contains(out, "= 12") {
		t.Fatalf("--cfg not applied:\n%s", out)
	}
	writeFile(t, dir, "stdbg.yaml", "max-dept: 7\n")
	_, errs, code := stdbg(t, "config")
	if code != exitUsage || !strings.Contains(errs, `unknown setting "max-dept"`) {
		t.Fatalf("typo in file accepted: %d %q", code, errs)
	}
}

func TestVersionAndConfigJSON(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		out, errs, code := stdbg(t, args...)
		if code != exitClean || out != "stdbg "+version+"\n" {
			t.Errorf("%v: exit %d, %q %q", args, code, out, errs)
		}
	}
	t.Setenv("STDBG_MAX_DEPTH", "9")
	out, errs, code := stdbg(t, "config", "--json")
	var doc struct {
		ConfigFile string `json:"config_file"`
		Settings   map[string]struct {
			Value  any    `json:"value"`
			Source string `json:"source"`
		} `json:"settings"`
	}
	if code != exitClean || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("config --json: exit %d, not JSON:\n%s\n%s", code, out, errs)
	}
	if d := doc.Settings["max-depth"]; fmt.Sprint(d.Value) != "9" || d.Source != "environment STDBG_MAX_DEPTH" {
		t.Errorf("max-depth %+v", d)
	}
	if len(doc.Settings) != len(knownKeys()) {
		t.Errorf("%d settings, want %d", len(doc.Settings), len(knownKeys()))
	}
}

func TestConfigDrivesFind(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeFile(t, dir, "custom.yaml", "max-depth: 1\n")
	out, _, code := stdbg(t, "find", "--config", cfg, example("deadly-embrace.c"))
	if code != exitClean || !strings.Contains(out, "No property violation found.") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

func TestCC(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := writeFile(t, dir, "ann.c", `#include <stdbg.h>
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
	out, errs, code := stdbg(t, "cc", "-o", exe, src)
	if code != 0 {
		t.Fatalf("cc failed: %d\n%s\n%s", code, out, errs)
	}
	got, err := exec.Command(exe).CombinedOutput()
	if err != nil || string(got) != "ok 0\n" {
		t.Fatalf("program without stdbg: %v %q", err, got)
	}
	_, errs, code = stdbg(t, "cc")
	if code != exitUsage || !strings.Contains(errs, "cc needs compiler arguments") {
		t.Fatalf("empty cc: %d %q", code, errs)
	}
}

func TestTranslateCfg(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want []string }{
		{[]string{"find", "--cfg=model-check/max-depth:10", "x"}, []string{"find", "--max-depth=10", "x"}},
		{[]string{"find", "--cfg", "model-check/reduction:none"}, []string{"find", "--reduction=none"}},
		{[]string{"find", "x", "--", "--cfg=a/b:c"}, []string{"find", "x", "--", "--cfg=a/b:c"}},
		{[]string{"--cfg=bad"}, []string{"--cfg-invalid=bad"}},
	}
	for _, tt := range tests {
		got := translateCfg(tt.in)
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("translateCfg(%q) = %q, want %q", tt.in, got, tt.want)
		}
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
	out, errs, code := stdbg(t, "find", "--memory=false", "--quiet", src)
	if code != exitClean || !strings.Contains(out, "Search: exhaustive") ||
		!strings.Contains(out, "Scope: thread operations; plain memory accesses were not scheduling points") {
		t.Fatalf("find: exit %d %s\n%s", code, errs, out)
	}
	out, _, _ = stdbg(t, "find", "--memory=false", "--quiet", "--json", src)
	var res struct {
		Complete     bool   `json:"complete"`
		MemoryPoints *bool  `json:"memory_scheduling_points"`
		Scope        string `json:"scope"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || !res.Complete || res.MemoryPoints == nil || *res.MemoryPoints || res.Scope != "thread operations" {
		t.Fatalf("JSON %+v (%v):\n%s", res, err, out)
	}
}
