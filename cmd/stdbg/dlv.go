package main

// stdbg replay --dlv: replay a schedule of a Go target under Delve, one
// thread step at a time (package dlvbridge drives Delve).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/stdbg/stdbg/dlvbridge"
	"github.com/stdbg/stdbg/internal/cachedir"
	"github.com/stdbg/stdbg/report"
	"github.com/stdbg/stdbg/rtnames"
	"github.com/stdbg/stdbg/search"
	"github.com/stdbg/stdbg/session"
)

// dlvStdin is what the interactive Delve client reads (the terminal;
// tests replace it).
var dlvStdin io.Reader = os.Stdin

// dlvBuildTimeout bounds the build of Delve when it is not installed.
const dlvBuildTimeout = 10 * time.Minute

// stopAt is where replay --dlv hands over: before step k, after the last
// step (end), or nowhere (none: the program runs to its end).
type stopAt struct {
	k         int
	end, none bool
}

// parseStopAt parses --stop-at; "" is the last step of the schedule.
func parseStopAt(s string, steps int) (stopAt, error) {
	switch s = strings.TrimSpace(s); s {
	case "":
		return stopAt{k: max(steps, 1)}, nil
	case "end":
		return stopAt{end: true}, nil
	case "none":
		return stopAt{none: true}, nil
	}
	k, err := strconv.Atoi(s)
	if err != nil || k < 1 {
		return stopAt{}, fmt.Errorf("--stop-at %q: want a step number from 1, end or none", s)
	}
	if k > steps {
		return stopAt{}, fmt.Errorf("--stop-at %d: the run has %d steps (use end to stop after the last)", k, steps)
	}
	return stopAt{k: k}, nil
}

// findDlv finds Delve, or builds the version go.mod pins into stdbg's
// cache.
func (a *app) findDlv() (string, error) {
	cache, err := cachedir.Dir()
	if err != nil {
		return "", err
	}
	p, err := dlvbridge.Find(cache)
	if err == nil || !errors.Is(err, dlvbridge.ErrNotFound) {
		return p, err
	}
	fmt.Fprintf(a.stderr, "stdbg: dlv is not on PATH: building Delve %s into %s (once)\n", dlvbridge.Version, cache)
	ctx, cancel := context.WithTimeout(context.Background(), dlvBuildTimeout)
	defer cancel()
	return dlvbridge.Build(ctx, cache)
}

// replayDlv handles replay --dlv. It runs the schedule natively under
// stdbg (for the report and the trace to compare against), builds the
// target with optimisations off, starts Delve headless on it with the
// schedule to replay, prints each step up to --stop-at with the goroutine
// Delve stops in, and hands the process over to an interactive Delve
// client. handled is false without --dlv.
func (a *app) replayDlv(cmd *cobra.Command, schedText, run string, args []string) (handled bool, err error) {
	if on, _ := cmd.Flags().GetBool("dlv"); !on {
		return false, nil
	}
	if on, _ := cmd.Flags().GetBool("gdb"); on || cmd.Flags().Changed("gdb-script") {
		return true, usageErr("--dlv debugs Go targets, --gdb C/C++ targets: give one")
	}
	stopText, _ := cmd.Flags().GetString("stop-at")
	noConnect, _ := cmd.Flags().GetBool("dlv-no-connect")
	wait, _ := cmd.Flags().GetDuration("dlv-wait")
	if wait <= 0 {
		return true, usageErr("--dlv-wait must be positive")
	}
	listen, _ := cmd.Flags().GetString("dlv-listen")
	if err := dlvbridge.CheckListen(listen); err != nil {
		return true, usageErr("--dlv-listen %s", err)
	}

	sched, t, env, err := a.debugTarget(cmd, "--dlv", "a Go package", schedText, run, args)
	if err != nil {
		return true, err
	}
	if !t.Go {
		return true, usageErr("--dlv debugs Go programs and tests, and %s is not one: use --gdb", t.Arg)
	}
	dlvExe, err := a.findDlv()
	if err != nil {
		return true, &exitError{code: exitUsage, err: fmt.Errorf("cannot run Delve: %w", err)}
	}

	r, trace, err := a.runNative(t, sched, env, "")
	if err != nil {
		return true, err
	}
	r.WriteStyled(a.stdout, a.colour())
	if r.Kind == search.Diverged.String() {
		return true, &exitError{code: exitUsage, err: errors.New("the schedule does not fit the program: nothing to debug")}
	}
	stop, err := parseStopAt(stopText, len(trace))
	if err != nil {
		return true, usageErr("%v", err)
	}

	debugBin, err := session.BuildGoDebug(t.Arg, t.Run != "")
	if err != nil {
		return true, usageErr("%v", err)
	}
	dir := ""
	if t.Run != "" {
		// go test runs a test binary in its package's directory.
		if dir, err = filepath.Abs(t.Arg); err != nil {
			return true, usageErr("%s: %v", t.Arg, err)
		}
	}
	// The schedule actually run, tail included, replays the same steps.
	executed := sched.String()
	if r.Executed != "" {
		executed = r.Executed
	}
	b, err := dlvbridge.Start(dlvbridge.Config{
		Dlv: dlvExe, Program: debugBin, Args: t.RunArgs(), Schedule: executed,
		Env: env, Dir: dir, Stdout: a.stdout, Stderr: a.stderr,
		Timeout: a.v.GetDuration("transition-timeout") + a.v.GetDuration("start-timeout"),
		Listen:  listen,
	})
	if err != nil {
		return true, &exitError{code: exitUsage, err: err}
	}
	defer b.Close()
	fmt.Fprintf(a.stdout, "Delve %s runs %s at %s, replaying %s:\n", dlvExe, filepath.Base(debugBin), b.Addr, executed)
	return true, a.driveDlv(b, r, stop, noConnect, wait, dlvExe)
}

// stepLine renders a stop as replay --dlv prints it.
func stepLine(s *dlvbridge.Stop, r *report.Report, total int) string {
	op := ""
	if s.Step >= 1 && s.Step <= len(r.Steps) {
		op = r.Steps[s.Step-1].Call
	}
	where := "?"
	if s.File != "" {
		where = fmt.Sprintf("%s:%d", filepath.Base(s.File), s.Line)
	}
	line := fmt.Sprintf("step %d/%d  thread %d  goroutine %d  %-28s  %s", s.Step, total, s.Thread, s.Goroutine, op, where)
	if src := sourceLine(s.File, s.Line); src != "" {
		line += "  " + src
	}
	return line
}

// sourceLine returns line n of file, trimmed, or "".
func sourceLine(file string, n int) string {
	if file == "" || n < 1 {
		return ""
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(b), "\n")
	if n > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[n-1])
}

// driveDlv follows the replay to the stop point and hands over.
func (a *app) driveDlv(b *dlvbridge.Bridge, r *report.Report, stop stopAt, noConnect bool, wait time.Duration, dlvExe string) error {
	total := len(r.Steps)
	for {
		s, exit, err := b.Next()
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		if exit != nil {
			fmt.Fprintf(a.stdout, "The program exited with status %d.\n", exit.Status)
			if exit.Status != 0 && r.Bug {
				return bugFound
			}
			if stop.none {
				return nil
			}
			return &exitError{code: exitUsage, err: fmt.Errorf("the program ended before the stop point")}
		}
		if s.Over {
			end := "the execution ended cleanly"
			if s.Outcome != "" {
				end = s.Outcome
			}
			fmt.Fprintf(a.stdout, "end after step %d/%d: %s\n", s.Step, total, end)
			if stop.end {
				return a.handOver(b, s, total, noConnect, wait, dlvExe)
			}
			continue
		}
		fmt.Fprintln(a.stdout, stepLine(s, r, total))
		if s.Step <= len(r.Steps) && r.Steps[s.Step-1].Thread != s.Thread {
			fmt.Fprintf(a.stdout, "  warning: under Delve thread %d runs step %d; stdbg's run had thread %d\n", s.Thread, s.Step, r.Steps[s.Step-1].Thread)
		}
		if !stop.none && !stop.end && s.Step == stop.k {
			return a.handOver(b, s, total, noConnect, wait, dlvExe)
		}
	}
}

// handOver leaves the process stopped at s to an interactive Delve
// client: dlv connect on the terminal, or, without one (or with
// --dlv-no-connect), the command to run, waiting at most wait for Delve
// to end.
func (a *app) handOver(b *dlvbridge.Bridge, s *dlvbridge.Stop, total int, noConnect bool, wait time.Duration, dlvExe string) error {
	if err := b.HandOver(s); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if s.Over {
		fmt.Fprintf(a.stdout, "Stopped after the last step (%d/%d): every goroutine is where the execution ended.\n", s.Step, total)
	} else {
		fmt.Fprintf(a.stdout, "Stopped before step %d/%d: thread %d (goroutine %d, selected) is about to run it at %s:%d", s.Step, total, s.Thread, s.Goroutine, filepath.Base(s.File), s.Line)
		if s.Frame >= 0 {
			fmt.Fprintf(a.stdout, " (frame %d)", s.Frame)
		}
		fmt.Fprintln(a.stdout, ".")
	}
	tmp, err := os.MkdirTemp("", "stdbg-dlv-")
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("creating a directory for the Delve script: %w", err)}
	}
	defer os.RemoveAll(tmp)
	init, err := dlvbridge.WriteScript(tmp)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	fmt.Fprintf(a.stdout, `In Delve (commands from %s):
  stdbg_where   the step about to run: thread, goroutine (selected), source
  stdbg_next    run that step and stop before the next one
  continue      run on to the end of the replay
  print %s   the replay's position
`, filepath.Base(init), rtnames.StateVar)
	connect := []string{"connect", "--init", init, b.Addr}
	interactive := !noConnect && isTerminal(dlvStdin)
	if !interactive {
		fmt.Fprintf(a.stdout, "Delve waits for a client (at most %v; the session ends when the client leaves): %s connect --init %s %s\n",
			wait, session.ShellQuote(dlvExe), session.ShellQuote(init), b.Addr)
		if err := b.WaitClient(wait); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		return nil
	}
	fmt.Fprintf(a.stdout, "Starting: %s connect --init %s %s\n", session.ShellQuote(dlvExe), session.ShellQuote(init), b.Addr)
	err = a.runOnTerminal("dlv connect", exec.Command(dlvExe, connect...), dlvStdin)
	// The user may have left the server running: end it.
	b.Close()
	return err
}

// isTerminal reports whether r is a terminal.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
