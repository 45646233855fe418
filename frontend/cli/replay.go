package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stdbg/stdbg/engine/corpus"
	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/frontend/session"
	"github.com/stdbg/stdbg/target/ctarget"
)

// replayer is stdbg replay: one schedule of a program, or a corpus
// entry's, run natively (replay.go, lasso.go), under GDB (gdb.go) or under
// Delve (dlv.go).
type replayer struct {
	*app
	sched     string // --schedule
	decisions string // --decisions: the log to write
	run       string // --run: the Go test
	binary    string // --binary: the program for entries of kind binary
	// htmlOut is the page --html writes; replayOf the command that
	// replays what is being replayed (an entry), for that page.
	htmlOut, replayOf string
}

func (c *replayer) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "replay (ENTRY | --schedule S PROGRAM [-- ARGS...])",
		Short: "run one schedule of a program deterministically",
		Long: `Run PROGRAM once, following the schedule S (as printed by stdbg find, e.g.
'1;1;2', or '1;2:1' where thread 2 makes data choice 1), then let it go on
with the default policy (keep the running thread, else the lowest thread id)
until it ends or reaches --max-depth. The program's output is shown.

If the schedule does not fit the program (a named thread does not exist or
cannot run at that step), stdbg says at which step and why, and exits 2.
Exit 1 when the run fails (the bug reproduces), 0 when it runs cleanly.

--decisions FILE also writes the run's decision log: each step's thread,
operation and result. With it the stdbg library replays the run alone,
without stdbg, for instance under a debugger:
  STDBG_REPLAY=FILE LD_PRELOAD=<library> PROGRAM ARGS
(stdbg prints the library's path). The program then stops where the log
ends, or says at which step it no longer fits.

--dlv replays a Go program or test under Delve: stdbg builds it with
optimisations off, starts Delve headless on it (dlv from PATH, or built at
the version stdbg pins), stops before every step in the goroutine of the
thread that runs it, prints the step, thread, goroutine and source line,
and at --stop-at (default: the last step, where the failure happens) hands
the stopped process to an interactive dlv connect.

A livelock or a violated --ltl property is a lasso, 'STEM (CYCLE)*': replay
runs the stem, then the cycle --cycles times (3 by default), checks after
each run of the cycle that the program is back in the state where the cycle
began, and stops there.`,
		Example: `  stdbg replay testdata/stdbg/deadly-embrace/deadlock-1f3a9c2e.json
  stdbg replay --schedule '1;1;2' examples/c/deadly-embrace.c
  stdbg replay --schedule 'Path = 1;2;1' ./myprog -- input.txt
  stdbg replay --dlv testdata/stdbg/embrace-prog/deadlock-c82da3ff.json
  stdbg replay --dlv --stop-at 2 --schedule '1;1;2' ./examples/go/embrace-prog
  stdbg replay --cycles 10 --schedule '1;1;1;2 (4;2;3;4)*' priority-inversion.c`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if c.htmlOut, _ = cmd.Flags().GetString("html"); c.htmlOut != "" {
				dbg, _ := cmd.Flags().GetBool("dlv")
				gdb, _ := cmd.Flags().GetBool("gdb")
				script, _ := cmd.Flags().GetString("gdb-script")
				if dbg || gdb || script != "" {
					return usageErr("--html writes the page of a native replay: it cannot be combined with --gdb, --gdb-script or --dlv")
				}
				if err := checkOutput("html", c.htmlOut); err != nil {
					return err
				}
			}
			if handled, err := c.dlv(cmd, args); handled {
				return err
			}
			if handled, err := c.gdb(cmd, args); handled {
				return err
			}
			if !cmd.Flags().Changed("schedule") {
				if len(args) == 1 && strings.HasSuffix(args[0], ".json") {
					return c.entry(args[0])
				}
				return usageErr("replay needs a corpus entry (.json) or --schedule (copy the Path printed by stdbg find)")
			}
			t, r, err := c.scheduleReplay(args, c.run)
			if err != nil {
				return err
			}
			return c.target(r, t)
		},
	}
	cmd.Flags().StringVar(&c.sched, "schedule", "", "the schedule to follow, e.g. '1;1;2'")
	cmd.Flags().StringVar(&c.run, "run", "", "Go packages: the test to replay (as go test -run)")
	cmd.Flags().StringVar(&c.decisions, "decisions", "", "also write the run's decision log to this file, for replay without stdbg")
	cmd.Flags().StringVar(&c.binary, "binary", "", binaryFlagUsage)
	cmd.Flags().String("html", "", "also write the run as a self-contained HTML page (threads as lanes, source on hover) to this file")
	cmd.Flags().Bool("gdb", false, "run the schedule, then debug it in GDB one thread step at a time (stdbg-next, stdbg-where, stdbg-trace, stdbg-goto K)")
	cmd.Flags().String("gdb-script", "", "write a GDB script that replays the schedule (and its decision log beside it); with --gdb, run GDB with it")
	cmd.Flags().Bool("dlv", false, "Go targets: replay the schedule under Delve, printing each step's thread, goroutine and source line, then hand over an interactive Delve session (dlv connect) at --stop-at")
	cmd.Flags().String("stop-at", "", "with --dlv: where to hand over: a step number K (stop before step K runs), end (after the last step), none (no session: run to the end); default the last step, where the failure happens")
	cmd.Flags().Bool("dlv-no-connect", false, "with --dlv: do not start dlv connect; print the command and wait for a client to end the session (the default when stdin is not a terminal)")
	cmd.Flags().String("dlv-listen", "127.0.0.1:0", "with --dlv: where Delve listens: a loopback host:port, or unix:PATH for a Unix socket only you can connect to (mode 0600)")
	cmd.Flags().Duration("dlv-wait", time.Hour, "with --dlv: how long Delve waits for a client before stdbg stops it (the session ends within a second of its last client leaving)")
	addSettings(cmd, "max-depth", "transition-timeout", "start-timeout", "json", "cycles", "races", "memory", "spurious-wakeups", "rand-seed", "max-stall")
	return cmd
}

// entry replays the corpus entry at path.
func (c *replayer) entry(path string) error {
	c.replayOf = "stdbg replay " + session.ShellQuote(path)
	t, r, err := c.entryReplay(path)
	if err != nil {
		return err
	}
	return c.target(r, t)
}

// entryReplay loads the corpus entry at path and resolves its target and
// its replay: the entry's depth bound, unless the user gave one.
func (c *replayer) entryReplay(path string) (*session.Target, hunt.Replay, error) {
	e, err := corpus.Load(path)
	if err != nil {
		return nil, hunt.Replay{}, usageErr("%v", err)
	}
	r, err := session.EntryReplay(e)
	if err != nil {
		return nil, hunt.Replay{}, usageErr("%s: %v", path, err)
	}
	t, err := session.FromEntry(path, e, c.binary)
	if err != nil {
		return nil, hunt.Replay{}, usageErr("%v", err)
	}
	c.settings(&r)
	return t, r, nil
}

// scheduleReplay resolves the program of args and the replay of
// --schedule (a lasso's too) on it.
func (c *replayer) scheduleReplay(args []string, run string) (*session.Target, hunt.Replay, error) {
	r, err := session.ParseReplay(c.sched)
	if err != nil {
		return nil, hunt.Replay{}, usageErr("--schedule %q: %v", c.sched, err)
	}
	t, err := c.resolve(args, run)
	if err != nil {
		return nil, hunt.Replay{}, err
	}
	c.settings(&r)
	return t, r, nil
}

// settings gives r the depth bound and the runs of a lasso's cycle that
// the user set.
func (c *replayer) settings(r *hunt.Replay) {
	if c.explicit("max-depth") {
		r.MaxDepth = c.s.MaxDepth
	}
	if r.Lasso() {
		r.Cycles = c.s.Cycles
	}
}

// target runs r on t, shows the program's output and the report, and
// writes the decision log and the page asked for. Exit 1 when the run
// fails (a bug, or a lasso whose every run of the cycle came back to the
// state where it began), 2 when the schedule does not fit.
func (c *replayer) target(r hunt.Replay, t *session.Target) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// A lasso's replay stops after its cycles: no need for the program's
	// exit handlers.
	s, err := c.startSession(t, session.Options{Stdout: c.stdout, Stderr: c.stderr, FastExit: r.Lasso(), State: r.Lasso()})
	if err != nil {
		return err
	}
	rd, err := s.Replay(context.Background(), r)
	// Let the program's output drain before the report.
	s.Close()
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	rep := rd.Report
	if c.decisions != "" && !r.Lasso() {
		comment := fmt.Sprintf("%s\nschedule %s\nexecuted %s", t.Arg, r.Schedule, rd.Executed)
		if err := ctarget.WriteDecisions(c.decisions, rd.Trace, comment); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		lib, _ := ctarget.Library()
		rep.Notes = append(rep.Notes, fmt.Sprintf("decision log written to %s; replay it without stdbg with STDBG_REPLAY=%s LD_PRELOAD=%s %s",
			c.decisions, session.ShellQuote(c.decisions), session.ShellQuote(lib), session.ShellQuote(t.Binary)))
	}
	if err := c.print(rep, t, r.String()); err != nil {
		return err
	}
	switch {
	case rd.Diverged():
		return &exitError{code: exitUsage}
	case r.Lasso() && rd.Loops(), !r.Lasso() && rd.Failed():
		return bugFound
	}
	return nil
}

// print prints the report of a replay of sched on t (JSON with --json),
// and writes its page when --html asked for it.
func (c *replayer) print(r *report.Report, t *session.Target, sched string) error {
	if c.s.JSON {
		b, _ := json.MarshalIndent(r, "", "  ")
		fmt.Fprintln(c.stdout, string(b))
	} else {
		r.WriteStyled(c.stdout, c.colour())
	}
	if c.htmlOut == "" {
		return nil
	}
	if r.Replay == "" {
		r.Replay = c.replayOf
	}
	if r.Replay == "" {
		r.Replay = t.ReplayCommand(sched)
	}
	if err := writeHTML(c.htmlOut, "replay of "+t.Arg, []*report.Report{r}, nil); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	return nil
}
