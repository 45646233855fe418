package gdbscript

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/target/ctarget"
)

// gdbTimeout bounds every GDB session of the tests.
const gdbTimeout = 2 * time.Minute

// needGDB returns GDB's path. The tests need the real GDB: without it they
// fail (CI installs it), they never skip.
func needGDB(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("gdb")
	if err != nil {
		t.Fatalf("gdb not found on PATH (%v): these tests drive the real GDB; install it (apt-get install gdb)", err)
	}
	return p
}

// runGDB runs GDB in batch mode on script, then the commands, and returns
// its output. env entries are added to the environment of GDB (and so of
// the program).
func runGDB(t *testing.T, script string, env []string, cmds ...string) string {
	t.Helper()
	gdb := needGDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), gdbTimeout)
	defer cancel()
	args := []string{"-q", "-nx", "-batch", "-iex", "set debuginfod enabled off", "-x", script}
	for _, c := range cmds {
		args = append(args, "-ex", c)
	}
	cmd := exec.CommandContext(ctx, gdb, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("gdb did not finish within %v:\n%s", gdbTimeout, out.String())
	}
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out.String())
	}
	return out.String()
}

// showArgs prints its arguments and $SHELL; its only thread operation is
// returning from main.
const showArgs = `#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		printf("arg[%d]=<%s>\n", i, argv[i]);
	const char *s = getenv("SHELL");
	printf("SHELL=<%s>\n", s ? s : "(unset)");
	fflush(stdout);
	return 0;
}
`

// TestGDBQuoting starts a program through the script from awkward paths
// (blanks, quotes, backslashes) with awkward arguments, with and without
// the shell fallback, and checks what the program receives.
func TestGDBQuoting(t *testing.T) {
	needGDB(t)
	// The library's path goes into LD_PRELOAD, which cannot carry blanks
	// or colons: quotes and a backslash only.
	t.Setenv("STDBG_CACHE", filepath.Join(t.TempDir(), `ca'c"h\e`))
	dir := filepath.Join(t.TempDir(), `we ird'd"q\x`)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "show args.c")
	if err := os.WriteFile(src, []byte(showArgs), 0o644); err != nil {
		t.Fatal(err)
	}
	built, err := ctarget.Build(src)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, `sh"o w`)
	b, err := os.ReadFile(built)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	lib, err := ctarget.Library()
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, `de"cis ions\.log`)
	trace := []executor.Step{{Thread: 1, Op: syncmodel.Op{Kind: syncmodel.Exit, API: syncmodel.APIMainReturn}}}
	if err := ctarget.WriteDecisions(log, trace, "quoting test"); err != nil {
		t.Fatal(err)
	}
	rep := &report.Report{Kind: "clean", Banner: "No property violation found.", Path: "1",
		Steps: []report.Step{{N: 1, Thread: 1, Call: "main returns 0", Where: report.Location{File: src, Line: 10}}}}

	for _, tt := range []struct {
		name  string
		args  []string
		shell bool
	}{
		{"verbatim", []string{"plain", `q"uo'te`, `back\slash`, "#hash", "$HOME", "*"}, false},
		{"through a shell", []string{"sp ace", "", `q"uo'te`, "tab\there", `$(echo no)`, `trail\`}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			script := filepath.Join(dir, tt.name+`'s "script".gdb`)
			s := &Session{Target: src, Binary: exe, Args: tt.args, Library: lib, Log: log, Report: rep,
				Kinds: []syncmodel.Kind{syncmodel.Exit}}
			if err := Write(script, s); err != nil {
				t.Fatal(err)
			}
			text, _ := os.ReadFile(script)
			if got := strings.Contains(string(text), "set startup-with-shell on"); got != tt.shell {
				t.Fatalf("shell fallback = %v, want %v", got, tt.shell)
			}
			// A $SHELL that does not exist: the shell fallback must not
			// use it, and the program must still see it.
			out := runGDB(t, script, []string{"SHELL=/nonexistent/fish"}, "stdbg-where", "stdbg-next")
			var want strings.Builder
			for i, a := range tt.args {
				fmt.Fprintf(&want, "arg[%d]=<%s>\n", i+1, a)
			}
			want.WriteString("SHELL=</nonexistent/fish>\n")
			if !strings.Contains(out, want.String()) {
				t.Errorf("the program did not get its arguments; want\n%s\ngdb said:\n%s", want.String(), out)
			}
			for _, w := range []string{"step 1 of 1: thread 1  main returns 0", "Step 1 of 1: thread 1 runs main returns 0", "exited (exit status 0)"} {
				if !strings.Contains(out, w) {
					t.Errorf("gdb output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestGDBHookSymbols checks that the library keeps the hooks the script
// breaks on, with their arguments, as real functions.
func TestGDBHookSymbols(t *testing.T) {
	t.Setenv("STDBG_CACHE", t.TempDir())
	lib, err := ctarget.Library()
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "info.gdb")
	os.WriteFile(script, []byte("file "+lib+"\n"), 0o644)
	out := runGDB(t, script, nil,
		"info address stdbg_step", "info address stdbg_replay_end", "info address stdbg_replay_diverged",
		"info address stdbg_thread_ostids", "info address stdbg_replay_step", "ptype stdbg_step")
	for _, w := range []string{
		`Symbol "stdbg_step" is a function at address`,
		`Symbol "stdbg_replay_end" is a function at address`,
		`Symbol "stdbg_replay_diverged" is a function at address`,
		`Symbol "stdbg_thread_ostids" is static storage at address`,
		`Symbol "stdbg_replay_step" is static storage at address`,
		"type = void (int, int)",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("gdb output lacks %q:\n%s", w, out)
		}
	}
}
