package cli

// stdbg replay --gdb and --gdb-script: replay a schedule under GDB, one
// thread step at a time (package gdbscript writes the script).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/stdbg/stdbg/debug/gdbscript"
	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/frontend/session"
	"github.com/stdbg/stdbg/target/ctarget"
)

// gdbPath finds GDB: $STDBG_GDB, else gdb on PATH.
func gdbPath() (string, error) {
	name := "gdb"
	if v := strings.TrimSpace(os.Getenv("STDBG_GDB")); v != "" {
		name = v
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("cannot run GDB (%s): %w; install it (apt-get install gdb) or set STDBG_GDB", name, err)
	}
	return p, nil
}

// gdb handles replay --gdb and --gdb-script: it runs the schedule
// natively under stdbg (with stacks, for the report), writes the decision
// log and a GDB script (into a temporary directory, or next to
// --gdb-script), then runs GDB on the program with that script (--gdb) or
// says how to (--gdb-script alone). handled is false when neither flag was
// given: replay then goes on as usual.
func (c *replayer) gdb(cmd *cobra.Command, args []string) (handled bool, err error) {
	run, _ := cmd.Flags().GetBool("gdb")
	scriptPath, _ := cmd.Flags().GetString("gdb-script")
	if !run && scriptPath == "" {
		return false, nil
	}
	if cmd.Flags().Changed("gdb-script") && scriptPath == "" {
		return true, usageErr("--gdb-script needs a file name")
	}
	decisions, _ := cmd.Flags().GetString("decisions")

	t, rp, err := c.debugTarget(cmd, "--gdb", "a program", "", args)
	if err != nil {
		return true, err
	}
	var gdbExe string
	if run {
		// Before the native run: no point running it without GDB.
		if gdbExe, err = gdbPath(); err != nil {
			return true, &exitError{code: exitUsage, err: err}
		}
	}

	// Where the files go.
	var dir string
	if scriptPath == "" {
		tmp, err := os.MkdirTemp("", "stdbg-gdb-")
		if err != nil {
			return true, &exitError{code: exitUsage, err: fmt.Errorf("creating a directory for the gdb script: %w", err)}
		}
		defer os.RemoveAll(tmp)
		dir = tmp
		scriptPath = filepath.Join(tmp, "replay.gdb")
	}
	if scriptPath, err = filepath.Abs(scriptPath); err != nil {
		return true, usageErr("--gdb-script: %v", err)
	}
	if decisions == "" {
		if dir != "" {
			decisions = filepath.Join(dir, "decisions.log")
		} else {
			decisions = strings.TrimSuffix(scriptPath, ".gdb") + ".decisions"
		}
	}
	if decisions, err = filepath.Abs(decisions); err != nil {
		return true, usageErr("--decisions: %v", err)
	}

	r, trace, err := c.runNative(t, rp, decisions)
	if err != nil {
		return true, err
	}
	if r.Kind == search.Diverged.String() {
		r.WriteStyled(c.stdout, c.colour())
		return true, &exitError{code: exitUsage, err: errors.New("the schedule does not fit the program: no GDB script written")}
	}

	lib, err := ctarget.Library()
	if err != nil {
		return true, &exitError{code: exitUsage, err: err}
	}
	s := &gdbscript.Session{Target: t.Arg, Args: t.Args, Env: t.Env, Log: decisions, Report: r}
	if s.Binary, err = filepath.Abs(t.Binary); err != nil {
		return true, usageErr("%s: %v", t.Binary, err)
	}
	if s.Library, err = filepath.Abs(lib); err != nil {
		return true, usageErr("%s: %v", lib, err)
	}
	for _, st := range trace {
		s.Kinds = append(s.Kinds, st.Op.Kind)
	}
	if err := gdbscript.Write(scriptPath, s); err != nil {
		return true, &exitError{code: exitUsage, err: err}
	}

	r.WriteStyled(c.stdout, c.colour())
	if !run {
		fmt.Fprintf(c.stdout, "GDB script written to %s (decision log %s).\nDebug the schedule with:\n  gdb -q -x %s\nthen stdbg-next, stdbg-where, stdbg-trace, stdbg-goto K (see the script's header).\n",
			scriptPath, decisions, session.ShellQuote(scriptPath))
		return true, nil
	}
	fmt.Fprintf(c.stdout, "Starting GDB: %s -q -x %s %s\n", session.ShellQuote(gdbExe), session.ShellQuote(scriptPath), session.ShellQuote(s.Binary))
	return true, c.runGDB(gdbExe, scriptPath, s.Binary)
}

// runNative runs the replay once under the checker with stacks, writes
// the decision log (unless decisions is "") and returns the report and the
// trace. The program's output is dropped: it shows again under the
// debugger.
func (c *replayer) runNative(t *session.Target, r hunt.Replay, decisions string) (*report.Report, []executor.Step, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s, err := c.startSession(t, session.Options{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	rd, err := s.Replay(context.Background(), r)
	if err != nil {
		return nil, nil, &exitError{code: exitUsage, err: err}
	}
	rep := rd.Report
	if rd.Diverged() {
		return rep, rd.Trace, nil
	}
	switch {
	case rd.Outcome == nil:
		rep.Notes = append(rep.Notes, "the decision log ends where the depth bound stopped the run")
	case rd.Outcome.Kind == search.Timeout:
		rep.Notes = append(rep.Notes, "under GDB the last step runs until you interrupt it (^C), as it never reaches a thread operation")
	}
	if decisions == "" {
		return rep, rd.Trace, nil
	}
	// The library reads lines of at most 255 bytes: keep the comment short.
	comment := fmt.Sprintf("%s\nschedule %s\nexecuted %s", shorten(t.Arg), shorten(r.Schedule.String()), shorten(rd.Executed.String()))
	if err := ctarget.WriteDecisions(decisions, rd.Trace, comment); err != nil {
		return nil, nil, &exitError{code: exitUsage, err: fmt.Errorf("writing the decision log: %w", err)}
	}
	return rep, rd.Trace, nil
}

// runGDB runs GDB on the terminal with the script and waits for it. An
// interrupt (^C) is GDB's to handle: stdbg ignores it meanwhile.
func (c *replayer) runGDB(gdbExe, script, binary string) error {
	return c.runOnTerminal("GDB", exec.Command(gdbExe, "-q", "-x", script, binary), c.stdin)
}

// shorten keeps a comment of the decision log within the line length the
// library reads (255 bytes with the "# " and the keyword).
func shorten(s string) string {
	const most = 200
	if len(s) <= most {
		return s
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("... (%d bytes)", len(s))
}

// debugTarget resolves what a debugger replay runs: a corpus entry (whose
// search depth becomes the default), or --schedule and a program (run
// selects a Go test). flag (the debugger's) and what (the kind of
// program) word the usage errors. A debugger follows plain schedules, not
// lassos.
func (c *replayer) debugTarget(cmd *cobra.Command, flag, what, run string, args []string) (*session.Target, hunt.Replay, error) {
	var t *session.Target
	var r hunt.Replay
	var err error
	switch {
	case cmd.Flags().Changed("schedule"):
		t, r, err = c.scheduleReplay(args, run)
	case len(args) != 1 || !strings.HasSuffix(args[0], ".json"):
		return nil, r, usageErr("replay %s needs a corpus entry (.json) or --schedule and %s", flag, what)
	default:
		t, r, err = c.entryReplay(args[0])
	}
	if err == nil && r.Lasso() {
		err = usageErr("replay %s follows a schedule, not a lasso (%s): replay it without %s", flag, r, flag)
	}
	return t, r, err
}
