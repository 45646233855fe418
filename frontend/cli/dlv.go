package cli

// stdbg replay --dlv: replay a schedule of a Go target under Delve, one
// thread step at a time (package dlvbridge drives Delve).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stdbg/stdbg/debug/dlvbridge"
	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/frontend/session"
	"github.com/stdbg/stdbg/internal/cachedir"
	"github.com/stdbg/stdbg/model/schedule"
)

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
// cache, saying so on stderr.
func findDlv(stderr io.Writer) (string, error) {
	cache, err := cachedir.Dir()
	if err != nil {
		return "", err
	}
	p, err := dlvbridge.Find(cache)
	if err == nil || !errors.Is(err, dlvbridge.ErrNotFound) {
		return p, err
	}
	fmt.Fprintf(stderr, "stdbg: dlv is not on PATH: building Delve %s into %s (once)\n", dlvbridge.Version, cache)
	ctx, cancel := context.WithTimeout(context.Background(), dlvBuildTimeout)
	defer cancel()
	return dlvbridge.Build(ctx, cache)
}

// dlv handles replay --dlv. It runs the schedule natively under
// stdbg (for the report and the trace to compare against), builds the
// target with optimisations off, starts Delve headless on it with the
// schedule to replay, prints each step up to --stop-at with the goroutine
// Delve stops in, and hands the process over to an interactive Delve
// client. handled is false without --dlv.
func (c *replayer) dlv(cmd *cobra.Command, args []string) (handled bool, err error) {
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

	var t *session.Target
	var rp hunt.Replay
	switch {
	case cmd.Flags().Changed("schedule"):
		t, rp, err = c.scheduleReplay(args, c.run)
	case len(args) != 1 || !strings.HasSuffix(args[0], ".json"):
		err = usageErr("replay --dlv needs a corpus entry (.json) or --schedule and a Go package")
	default:
		t, rp, err = c.entryReplay(args[0])
	}
	if err != nil {
		return true, err
	}
	if !t.Go {
		return true, usageErr("--dlv debugs Go programs and tests, and %s is not one: use --gdb", t.Arg)
	}
	if rp.Lasso() {
		fmt.Fprintf(c.stdout, "A lasso: Delve replays its stem, %s, then its cycle, %s, %d times (--cycles).\n", rp.Schedule, rp.Cycle, max(rp.Cycles, 1))
		rp = unrollLasso(rp)
	}
	// Built as the search built it: a corpus entry's target is rebuilt
	// with the race detector (session.FromEntry), a --schedule's as
	// --races says.
	race := c.s.Races || !cmd.Flags().Changed("schedule")
	var stop stopAt
	dr, err := c.startDlvReplay(t, rp, race, listen, c.stdout, c.stderr, func(r *report.Report, steps int) error {
		r.WriteStyled(c.stdout, c.colour())
		if r.Kind == search.Diverged.String() {
			return &exitError{code: exitUsage, err: errors.New("the schedule does not fit the program: nothing to debug")}
		}
		var err error
		if stop, err = parseStopAt(stopText, steps); err != nil {
			return usageErr("%v", err)
		}
		return nil
	})
	if err != nil {
		return true, err
	}
	defer dr.b.Close()
	fmt.Fprintf(c.stdout, "Delve %s runs %s at %s, replaying %s:\n", dr.exe, filepath.Base(dr.bin), dr.b.Addr, dr.executed)
	d := &dlvDriver{app: c.app, b: dr.b, r: dr.r, stop: stop, noConnect: noConnect, wait: wait, exe: dr.exe}
	return true, d.drive()
}

// unrollLasso returns the replay a debugger follows for the lasso rp:
// its stem, then its cycle rp.Cycles times (a cycle brings the program
// back to the state where it began, so it can run again), as a plain
// schedule whose replay stops there, where the lasso says the program
// goes round for ever.
func unrollLasso(rp hunt.Replay) hunt.Replay {
	out := append(schedule.Schedule(nil), rp.Schedule...)
	for range max(rp.Cycles, 1) {
		out = append(out, rp.Cycle...)
	}
	return hunt.Replay{Schedule: out, MaxDepth: len(out)}
}

// dlvReplay is a schedule replayed under Delve: stdbg's own run of it,
// and Delve on the debugging build of the target, stopped before anything
// of the replay ran.
type dlvReplay struct {
	b        *dlvbridge.Bridge
	r        *report.Report // the native run's
	executed string         // the schedule Delve replays: the native run's, tail included
	exe, bin string         // Delve, and the debugging build
}

// startDlvReplay starts the replay rp on t under Delve, listening at listen, the program's output going to stdout
// and stderr: it runs the schedule natively for its report and trace,
// hands them to check (which may refuse to go on), builds t for Delve
// (with the race detector if race) and starts Delve on that build with
// the schedule the native run executed. It is the one place where replay
// --dlv and stdbg dap start a replay under Delve.
func (a *app) startDlvReplay(t *session.Target, rp hunt.Replay, race bool, listen string, stdout, stderr io.Writer, check func(r *report.Report, steps int) error) (*dlvReplay, error) {
	dlvExe, err := findDlv(stderr)
	if err != nil {
		return nil, &exitError{code: exitUsage, err: fmt.Errorf("cannot run Delve: %w", err)}
	}
	r, trace, err := (&replayer{app: a}).runNative(t, rp, "")
	if err != nil {
		return nil, err
	}
	if check != nil {
		if err := check(r, len(trace)); err != nil {
			return nil, err
		}
	}
	debugBin, err := session.BuildGoDebug(t.Arg, t.Run != "", race)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	dir := ""
	if t.Run != "" {
		// go test runs a test binary in its package's directory.
		if dir, err = filepath.Abs(t.Arg); err != nil {
			return nil, usageErr("%s: %v", t.Arg, err)
		}
	}
	// The schedule actually run, tail included, replays the same steps.
	executed := rp.Schedule.String()
	if r.Executed != "" {
		executed = r.Executed
	}
	b, err := dlvbridge.Start(dlvbridge.Config{
		Dlv: dlvExe, Program: debugBin, Args: t.RunArgs(), Schedule: executed,
		Env: t.Env, Dir: dir, Stdout: stdout, Stderr: stderr,
		Timeout: a.s.TransitionTimeout + a.s.StartTimeout,
		Listen:  listen,
	})
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	return &dlvReplay{b: b, r: r, executed: executed, exe: dlvExe, bin: debugBin}, nil
}
