// Package dap serves the Debug Adapter Protocol over the replay of a
// schedule of a Go target under Delve, so that an editor (VS Code, nvim,
// any DAP client) steps a bug stdbg found one scheduling step at a time.
//
// A Server answers one client. Its launch request names a corpus entry,
// or a schedule and a Go package (and a test); the server's Launcher
// builds and starts the replay under Delve (package dlvbridge), stopped
// before its first step. From there:
//
//   - every stop is before a step, in the goroutine of the thread that
//     runs it: the stopped event names that thread, and its top frame is
//     where the thread calls the operation of the step;
//   - next (and step in, step out) runs that step and stops before the
//     next one; continue runs step after step until a breakpoint of the
//     user's is hit, the execution ends in its bug (an exception stop,
//     with stdbg's report) or the program exits; pause stops before the
//     next step;
//   - the threads are stdbg's threads, numbered as in stdbg's reports and
//     named by the function they run and where they were started;
//   - stacks, scopes, variables, expressions and breakpoints are Delve's,
//     read over its JSON-RPC API.
//
// The protocol's messages are those of github.com/google/go-dap.
package dap

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/stdbg/stdbg/debug/dlvbridge"
	"github.com/stdbg/stdbg/engine/report"
)

// LaunchArgs are the arguments of a launch request, as an editor's
// configuration (a launch.json entry, an nvim-dap configuration) writes
// them. Attributes the editor adds of its own (type, name, request, ...)
// are ignored.
type LaunchArgs struct {
	// Entry is a corpus entry to replay (the file stdbg find or stdbg
	// test saved, the argument of the stdbg replay command they print).
	Entry string `json:"entry,omitempty"`
	// Schedule is a schedule to replay instead ("1;1;2"), of the Go
	// program or test package Package (Program is accepted for it, as
	// Go's own debug configurations name it); Run selects a test (as go
	// test -run) and Args are the program's arguments.
	Schedule string   `json:"schedule,omitempty"`
	Package  string   `json:"package,omitempty"`
	Program  string   `json:"program,omitempty"`
	Run      string   `json:"run,omitempty"`
	Args     []string `json:"args,omitempty"`
	// Cwd is the directory relative paths are taken from (default: the
	// server's working directory).
	Cwd string `json:"cwd,omitempty"`
	// StopOnEntry stops before the first step (the default); false runs
	// on to the first breakpoint, or to the bug.
	StopOnEntry *bool `json:"stopOnEntry,omitempty"`
}

// Target returns the package a schedule is of: Package, else Program.
func (a LaunchArgs) Target() string {
	if a.Package != "" {
		return a.Package
	}
	return a.Program
}

// Named reports whether a names what to replay: an entry or a schedule.
func (a LaunchArgs) Named() bool { return a.Entry != "" || a.Schedule != "" }

// Check reports what is wrong with a, in one line.
func (a LaunchArgs) Check() error {
	switch {
	case a.Entry != "" && a.Schedule != "":
		return errors.New(`give "entry" (a corpus entry) or "schedule" with "package", not both`)
	case a.Entry != "" && !strings.HasSuffix(a.Entry, ".json"):
		return errors.New(`"entry" is a corpus entry, a .json file saved by stdbg find or stdbg test`)
	case a.Schedule != "" && a.Target() == "":
		return errors.New(`"schedule" needs "package": the Go program or test package it is a schedule of`)
	case !a.Named():
		return errors.New(`nothing to replay: give "entry" (a corpus entry) or "schedule" and "package"`)
	}
	return nil
}

// Output is where a launch and the replay it starts write: the program's
// standard output and standard error, and stdbg's own messages (the
// editor's debug console).
type Output struct {
	Stdout, Stderr, Console io.Writer
}

// Debugger is a replay under Delve as the server drives it: a
// *dlvbridge.Bridge.
type Debugger interface {
	// Run lets the target run to its next stop: before a step, at a
	// breakpoint, or its end (see dlvbridge.Bridge.Run).
	Run() (*dlvbridge.Stop, *dlvbridge.Exit, error)
	// Client reads the stopped target and sets breakpoints.
	Client() *dlvbridge.Client
	// Close ends Delve and the target; it may be called while Run
	// waits, and more than once.
	Close()
}

// Replay is a schedule replayed under Delve, stopped before anything of
// it ran: what a Launcher gives the server.
type Replay struct {
	// Bridge drives Delve on the target; the server closes it.
	Bridge Debugger
	// Report is stdbg's own replay of the schedule: each step's thread,
	// operation and place, and how the execution ends.
	Report *report.Report
	// Schedule is the schedule being replayed, its tail included.
	Schedule string
	// Name says what runs, for messages ("TestX in ./pkg").
	Name string
	// Lasso is set for a livelock or a violated liveness property (a
	// lasso): Schedule is its stem followed by its cycle run several
	// times, and Lasso says so ("livelock: the cycle 2;3 ran 3 times").
	// Continue stops once the schedule is done, as at a bug.
	Lasso string
}

// A Launcher starts the replay a launch request asks for. It gives up
// when ctx is done.
type Launcher interface {
	Launch(ctx context.Context, args LaunchArgs, out Output) (*Replay, error)
}

// LauncherFunc is a function that is a Launcher.
type LauncherFunc func(ctx context.Context, args LaunchArgs, out Output) (*Replay, error)

// Launch calls f.
func (f LauncherFunc) Launch(ctx context.Context, args LaunchArgs, out Output) (*Replay, error) {
	return f(ctx, args, out)
}
