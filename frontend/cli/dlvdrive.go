package cli

// The session of replay --dlv once Delve runs: each step up to the stop
// point, and the hand-over to an interactive client.

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stdbg/stdbg/debug/dlvbridge"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/frontend/session"
	"github.com/stdbg/stdbg/internal/rtnames"
)

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

// dlvDriver follows a replay under Delve to its stop point and hands the
// process over to an interactive client.
type dlvDriver struct {
	*app
	b    *dlvbridge.Bridge
	r    *report.Report // the native run's, to compare against
	stop stopAt
	// noConnect: print the command to connect instead of running it;
	// wait bounds the wait for a client then; exe is Delve.
	noConnect bool
	wait      time.Duration
	exe       string
}

// drive follows the replay to the stop point and hands over.
func (d *dlvDriver) drive() error {
	a, b, r, stop := d.app, d.b, d.r, d.stop
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
				// A data race's outcome is the detector's whole
				// report, which the program printed already.
				end, _, _ = strings.Cut(s.Outcome, "\n")
			}
			fmt.Fprintf(a.stdout, "end after step %d/%d: %s\n", s.Step, total, end)
			if stop.end {
				return d.handOver(s, total)
			}
			continue
		}
		fmt.Fprintln(a.stdout, stepLine(s, r, total))
		if s.Step <= len(r.Steps) && r.Steps[s.Step-1].Thread != s.Thread {
			fmt.Fprintf(a.stdout, "  warning: under Delve thread %d runs step %d; stdbg's run had thread %d\n", s.Thread, s.Step, r.Steps[s.Step-1].Thread)
		}
		if !stop.none && !stop.end && s.Step == stop.k {
			return d.handOver(s, total)
		}
	}
}

// handOver leaves the process stopped at s to an interactive Delve
// client: dlv connect on the terminal, or, without one (or with
// --dlv-no-connect), the command to run, waiting at most d.wait for Delve
// to end.
func (d *dlvDriver) handOver(s *dlvbridge.Stop, total int) error {
	a, b, noConnect, wait, dlvExe := d.app, d.b, d.noConnect, d.wait, d.exe
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
	interactive := !noConnect && isTerminal(a.stdin)
	if !interactive {
		fmt.Fprintf(a.stdout, "Delve waits for a client (at most %v; the session ends when the client leaves): %s connect --init %s %s\n",
			wait, session.ShellQuote(dlvExe), session.ShellQuote(init), b.Addr)
		if err := b.WaitClient(wait); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		return nil
	}
	fmt.Fprintf(a.stdout, "Starting: %s connect --init %s %s\n", session.ShellQuote(dlvExe), session.ShellQuote(init), b.Addr)
	err = a.runOnTerminal("dlv connect", exec.Command(dlvExe, connect...), a.stdin)
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
