package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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
	if err := measure(&out, options{only: regexp.MustCompile(`^counter 3x3$`), rounds: 1, stdbg: bin}); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", out.String())
	for _, want := range []string{
		"SimGrid: not installed (set SIMGRID_MC and SIMGRID_STHREAD); its column is as recorded in issue 36",
		"| program | stdbg | stdbg CPU | stdbg count | stdbg peak memory | SimGrid (recorded, issue 36) |",
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
	out := &rowLog{calls: filepath.Join(dir, "calls")}
	start := time.Now()
	o := options{only: regexp.MustCompile(`^counter`), rounds: 3, stdbg: stdbg, mc: mc, sthread: "/opt/sg/libsthread.so"}
	if err := measure(out, o); err != nil {
		t.Fatal(err)
	}
	t.Logf("%v\n%s", time.Since(start), out.String())
	calls, err := os.ReadFile(filepath.Join(dir, "calls"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(calls)), "\n")
	// Each program's row is written as soon as its runs end, before the
	// next program's first run.
	want := []string{"bench-counter 3 3", "bench-counter 3 3", "bench-counter 3 3", "bench-counter 3 3", "ROW counter 3x3",
		"bench-counter 4 2", "bench-counter 4 2", "bench-counter 4 2", "bench-counter 4 2", "ROW counter 4x2"}
	if len(lines) != len(want)+1 || lines[0] != "ROW header" {
		t.Fatalf("calls and rows (want the header, then per program a warm-up, 3 rounds and its row):\n%s", calls)
	}
	for i, w := range want {
		if !strings.HasSuffix(lines[i+1], w) {
			t.Errorf("call or row %d is %q, want one ending in %q", i+1, lines[i+1], w)
		}
	}
	if !strings.HasPrefix(lines[1], "--cfg=model-check/reduction:odpor --cfg=model-check/setenv:LD_PRELOAD=/opt/sg/libsthread.so ") {
		t.Errorf("calls:\n%s", calls)
	}
	for _, want := range []string{
		"| program | stdbg | stdbg CPU | stdbg count | stdbg peak memory | SimGrid | SimGrid CPU | SimGrid count | SimGrid peak memory | stdbg faster |",
		" | 1680 executions | ",
		" | 1680 traces | ",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %q", want)
		}
	}
}

// rowLog is the table's writer in TestSimGridPath: it appends a mark for
// each line of the table it is given to the file of simgrid-mc's calls,
// so that the test sees when each row was written.
type rowLog struct {
	strings.Builder
	calls string
}

func (l *rowLog) Write(p []byte) (int, error) {
	var mark string
	switch line := string(p); {
	case strings.HasPrefix(line, "| program"):
		mark = "ROW header\n"
	case strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "|---"):
		mark = "ROW " + strings.TrimSpace(strings.Split(line, "|")[1]) + "\n"
	}
	if mark != "" {
		f, err := os.OpenFile(l.calls, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return 0, err
		}
		f.WriteString(mark)
		f.Close()
	}
	return l.Builder.Write(p)
}

// TestSimGridBuildsEveryRow compiles every row's program as the SimGrid
// side does: the bounded buffer includes stdbg.h, whose annotations fall
// back to their plain meaning without stdbg.
func TestSimGridBuildsEveryRow(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	sg := &simgridTool{dir: t.TempDir()}
	for _, p := range programs {
		bin, err := sg.build(p.src)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if testing.Short() {
			continue
		}
		// Built plainly, each runs to its end on its own (the
		// philosophers may deadlock: it is given a second).
		cmd := exec.Command(bin, p.args...)
		cmd.WaitDelay = time.Second
		done := make(chan error, 1)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil && !p.firstBug {
				t.Errorf("%s built for SimGrid: %v", p.name, err)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
			if !p.firstBug {
				t.Errorf("%s built for SimGrid did not end in 10 s", p.name)
			}
		}
	}
}

// TestHogs runs the table beside CPU hogs with a stand-in for stdbg that
// counts the hogs running while it runs: the runs alternate between none
// and two, and the table has the columns beside the hogs.
func TestHogs(t *testing.T) {
	dir := t.TempDir()
	stdbg := filepath.Join(dir, "stdbg")
	fake := "#!/bin/sh\nps -e -o args= | grep -c '^/bin/sh -c while :; do :; done$' >> " + filepath.Join(dir, "hogs") + "\n" +
		"echo 'Executions = 1680  Transitions = 52080  States = 20816  (0.10 s)'\n"
	if err := os.WriteFile(stdbg, []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join("..", ".."))
	var out strings.Builder
	if err := measure(&out, options{only: regexp.MustCompile(`^counter 3x3$`), rounds: 2, stdbg: stdbg, hogs: 2}); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", out.String())
	counts, err := os.ReadFile(filepath.Join(dir, "hogs"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(counts)); !slices.Equal(got, []string{"0", "0", "2", "0", "2"}) {
		t.Errorf("hogs running during the warm-up and the runs: %q, want 0, then 0 and 2 in each round", got)
	}
	for _, want := range []string{
		"Each run alternates with one beside 2 CPU hogs",
		"| program | stdbg | stdbg CPU | stdbg beside hogs | stdbg CPU beside hogs | slowdown | stdbg count |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %q", want)
		}
	}
	if n := strings.Count(out.String(), "\n| counter 3x3 | "); n != 1 {
		t.Errorf("%d rows, want 1:\n%s", n, out.String())
	}
}
