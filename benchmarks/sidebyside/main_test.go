package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestStdbgOnly runs the stdbg-only path for real on the smallest row: a
// stdbg built from the tree, one round, no SimGrid: the table has stdbg's
// count of the counter's traces and SimGrid's recorded figure, labelled
// as recorded.
func TestStdbgOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds stdbg and runs a search")
	}
	bin := filepath.Join(t.TempDir(), "stdbg")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/stdbg").CombinedOutput(); err != nil {
		t.Fatalf("building stdbg: %v\n%s", err, out)
	}
	t.Setenv("STDBG_CACHE", t.TempDir())
	t.Chdir(filepath.Join("..", ".."))
	var out strings.Builder
	if err := measure(&out, regexp.MustCompile(`^counter 3x3$`), 1, bin, "", "", ""); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", out.String())
	for _, want := range []string{
		"SimGrid: not installed (set SIMGRID_MC and SIMGRID_STHREAD); its column is as recorded in issue 36",
		"| program | stdbg | stdbg count | stdbg peak memory | SimGrid (recorded, issue 36) |",
		"| counter 3x3 | ",
		" | 1680 executions | ",
		" | 2.24 s (stdbg 0.19 s then: 11.8x) |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %q", want)
		}
	}
	if strings.Count(out.String(), "\n| ") != 2 {
		t.Errorf("want a header and one row:\n%s", out.String())
	}
}

// TestSimGridPath runs the SimGrid path with a stand-in for simgrid-mc (a
// script printing what SimGrid prints at the end of a search), to check
// the command line, the alternation and the table.
func TestSimGridPath(t *testing.T) {
	dir := t.TempDir()
	mc := filepath.Join(dir, "simgrid-mc")
	script := "#!/bin/sh\necho \"$@\" >> " + filepath.Join(dir, "calls") + "\n" +
		"echo '[0.000000] [mc_dfs/INFO] DFS exploration ended. 1680 unique states visited; 1680 explored traces'\n"
	if err := os.WriteFile(mc, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	stdbg := filepath.Join(dir, "stdbg")
	fake := "#!/bin/sh\necho 'Executions = 1680  Transitions = 52080  States = 20816  (0.10 s)'\n"
	if err := os.WriteFile(stdbg, []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join("..", ".."))
	var out strings.Builder
	start := time.Now()
	if err := measure(&out, regexp.MustCompile(`^counter`), 3, stdbg, mc, "/opt/sg/libsthread.so", ""); err != nil {
		t.Fatal(err)
	}
	t.Logf("%v\n%s", time.Since(start), out.String())
	calls, err := os.ReadFile(filepath.Join(dir, "calls"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(calls)), "\n")
	if len(lines) != 8 {
		t.Fatalf("simgrid-mc called %d times, want 2 programs x (a warm-up and 3 rounds):\n%s", len(lines), calls)
	}
	if !strings.HasPrefix(lines[0], "--cfg=model-check/reduction:odpor --cfg=model-check/setenv:LD_PRELOAD=/opt/sg/libsthread.so ") ||
		!strings.HasSuffix(lines[0], "bench-counter 3 3") || !strings.HasSuffix(lines[1], "bench-counter 4 2") {
		t.Errorf("calls:\n%s", calls)
	}
	for _, want := range []string{
		"| program | stdbg | stdbg count | stdbg peak memory | SimGrid | SimGrid count | SimGrid peak memory | stdbg faster |",
		" | 1680 executions | ",
		" | 1680 traces | ",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %q", want)
		}
	}
}
