package cli

// stdbg dap: the replay of a Go bug served to an editor over the Debug
// Adapter Protocol (package dap), Delve underneath (dlv.go's
// startDlvReplay).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/stdbg/stdbg/engine/corpus"
	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/frontend/dap"
	"github.com/stdbg/stdbg/frontend/session"
)

// dapCmd is stdbg dap.
type dapCmd struct {
	*app
	sched, run string
	listen     string
	wait       time.Duration
}

func (c *dapCmd) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dap [ENTRY | --schedule S [--run TEST] PACKAGE [-- ARGS...]]",
		Short: "serve the replay of a Go bug to an editor over the Debug Adapter Protocol",
		Long: `Serve the replay of a schedule of a Go program or test to an editor over the
Debug Adapter Protocol (DAP), which VS Code, nvim-dap, Emacs and others speak to
debuggers. The editor's launch request names a corpus entry ("entry": the file
in the replay command stdbg find and stdbg test print) or a schedule
("schedule", "package", and "run" for a test, "args" for a program); "cwd" is
the directory relative paths start from. stdbg runs the schedule once, builds
the target with optimisations off and starts Delve on it, as replay --dlv does.
An ENTRY, or --schedule and a PACKAGE, on the command line stand for what a
launch request does not name.

The replay stops before each step, in the goroutine of the thread that runs it,
at the line where that thread calls the step's operation ("stopOnEntry": false
runs on to the first breakpoint or the bug instead of stopping before step 1):
  next, step in, step out   run that step, stop before the next one
  continue                  run step after step until one of your breakpoints,
                            the bug (an exception stop carrying stdbg's report)
                            or the end of the program
  pause                     stop before the next step
The threads are stdbg's, numbered as in its reports ("thread 2 (worker, started
at main.go:12)"); stacks, variables, watches and breakpoints come from Delve.
The "Replay" scope of every frame says where the replay stands. A livelock
(a lasso, 'STEM (CYCLE)*') replays its stem, then its cycle --cycles times;
continue stops there, as at a bug.

Without --listen the server speaks on standard input and output, for an
editor that starts it as its debug adapter; with --listen 127.0.0.1:PORT it
waits (at most --wait) for one client on that loopback port. It serves one
client, and ends, with Delve and the program, when that client leaves.

stdbg dap serves Go targets; for C and C++ use stdbg replay --gdb.`,
		Example: `  stdbg dap                                  # on stdin and stdout: an editor starts it
  stdbg dap --listen 127.0.0.1:4711          # for VS Code's "debugServer": 4711
  stdbg dap --listen 127.0.0.1:4711 testdata/stdbg/TestTransfer/deadlock-ba5b81e8.json
  stdbg dap --schedule '1;1;2;2' --run TestAccounts/crossed ./bank`,
		RunE: c.runE,
	}
	cmd.Flags().StringVar(&c.listen, "listen", "", "serve one client on this loopback host:port (e.g. 127.0.0.1:4711; port 0 picks a free one) instead of on standard input and output")
	cmd.Flags().DurationVar(&c.wait, "wait", time.Hour, "with --listen: how long to wait for the client before giving up")
	cmd.Flags().StringVar(&c.sched, "schedule", "", "the schedule to replay when the launch request names none, e.g. '1;1;2'")
	cmd.Flags().StringVar(&c.run, "run", "", "with --schedule: the Go test (as go test -run)")
	addSettings(cmd, "max-depth", "transition-timeout", "start-timeout", "races", "rand-seed", "max-stall", "cycles")
	return cmd
}

func (c *dapCmd) runE(cmd *cobra.Command, args []string) error {
	var defaults dap.LaunchArgs
	switch {
	case cmd.Flags().Changed("schedule"):
		if len(args) == 0 {
			return usageErr("--schedule needs the Go package it is a schedule of")
		}
		defaults = dap.LaunchArgs{Schedule: c.sched, Package: args[0], Run: c.run, Args: args[1:]}
	case len(args) == 1:
		defaults = dap.LaunchArgs{Entry: args[0]}
	case len(args) > 1:
		return usageErr("dap takes one corpus entry, or --schedule and a package with its arguments")
	case c.run != "":
		return usageErr("--run selects the test of a --schedule")
	}
	if defaults.Named() {
		if err := defaults.Check(); err != nil {
			return usageErr("%v", err)
		}
		if _, _, err := search.ParseLasso(defaults.Schedule); defaults.Schedule != "" && err != nil {
			return usageErr("--schedule %q: %v", defaults.Schedule, err)
		}
	}
	if c.listen != "" {
		if err := dap.CheckListen(c.listen); err != nil {
			return usageErr("--listen %v", err)
		}
		if c.wait <= 0 {
			return usageErr("--wait must be positive")
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	srv := &dap.Server{Launcher: dapLauncher{c}, Defaults: defaults, Log: c.stderr}
	if c.listen == "" {
		return srv.Serve(ctx, c.stdin, c.stdout)
	}
	l, err := dap.Listen(c.listen)
	if err != nil {
		return usageErr("--listen %v", err)
	}
	fmt.Fprintf(c.stdout, "stdbg dap: listening at %s (one client; it ends when the client leaves)\n", l.Addr())
	err = srv.ServeListener(ctx, l, c.wait)
	if errors.Is(err, dap.ErrNoClient) {
		return &exitError{code: exitUsage, err: err}
	}
	return err
}

// dapLauncher starts the replays stdbg dap's client asks for, with the
// settings of the command line.
type dapLauncher struct{ c *dapCmd }

// Launch resolves the target of args (an entry, or a schedule of a
// package), refuses what is not Go, and starts its replay under Delve.
func (l dapLauncher) Launch(ctx context.Context, args dap.LaunchArgs, out dap.Output) (*dap.Replay, error) {
	c := l.c
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) || args.Cwd == "" {
			return p
		}
		return filepath.Join(args.Cwd, p)
	}
	var (
		t    *session.Target
		rp   hunt.Replay
		kind = "lasso"
		race bool
		err  error
	)
	rc := &replayer{app: c.app}
	if args.Entry != "" {
		path := abs(args.Entry)
		e, err := corpus.Load(path)
		if err != nil {
			return nil, err
		}
		if !strings.HasPrefix(e.Target.Kind, "go-") {
			return nil, fmt.Errorf("%s is a bug of a %s target: stdbg dap serves Go targets; for C and C++ use stdbg replay --gdb %s", args.Entry, e.Target.Kind, args.Entry)
		}
		if t, rp, err = rc.entryReplay(path); err != nil {
			return nil, err
		}
		// A corpus entry's target is rebuilt with the race detector
		// (session.FromEntry): so is the debugging build.
		race, kind = true, e.Failure.Kind
	} else {
		pkg := abs(args.Target())
		if !session.IsGoTarget(pkg) {
			return nil, fmt.Errorf("%s is not a Go package: stdbg dap serves Go targets; for C and C++ use stdbg replay --gdb", args.Target())
		}
		rc.sched = args.Schedule
		if t, rp, err = rc.scheduleReplay(append([]string{pkg}, args.Args...), args.Run); err != nil {
			return nil, err
		}
		race = c.s.Races
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name := t.Arg
	if t.Run != "" {
		name = fmt.Sprintf("%s (-run %s)", t.Arg, t.Run)
	}
	lasso := ""
	if rp.Lasso() {
		lasso = fmt.Sprintf("%s: the cycle %s ran %d times after the stem %s, and would go on for ever", kind, rp.Cycle, max(rp.Cycles, 1), rp.Schedule)
		rp = unrollLasso(rp)
	}
	dr, err := c.startDlvReplay(t, rp, race, "", out.Stdout, out.Stderr, func(r *report.Report, _ int) error {
		if r.Kind == search.Diverged.String() {
			return fmt.Errorf("the schedule does not fit %s: %s", name, r.Message)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &dap.Replay{Bridge: dr.b, Report: dr.r, Schedule: dr.executed, Name: name, Lasso: lasso}, nil
}
