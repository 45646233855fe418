// Package cli is stdbg's command line: the commands (find, test, replay,
// dap, corpus, grade, cc, config, version), their flags and settings, and
// what they print. Command stdbg is main calling Run; tests run the same
// command lines in-process through Run.
//
//	stdbg find examples/c/deadly-embrace.c          explore schedules, report the first bug
//	stdbg replay --schedule '1;1;2' PROG            run one schedule again, deterministically
//	stdbg cc -o prog prog.c                         compile with the flags stdbg wants
//	stdbg config                                    show the effective settings
//
// Exit status: 0 no bug within the bounds, 1 a bug was found, 2 bad usage
// or input.
package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// Exit statuses of Run.
const (
	// ExitClean: no bug within the bounds.
	ExitClean = 0
	// ExitBug: a bug was found (or reproduced).
	ExitBug = 1
	// ExitUsage: bad usage or input.
	ExitUsage = 2
)

// The short names the commands use.
const (
	exitClean = ExitClean
	exitBug   = ExitBug
	exitUsage = ExitUsage
)

// exitError carries an exit status through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErr marks an error as bad usage or input (exit status 2).
func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// bugFound is the exit of a run that found (or reproduced) a bug.
var bugFound = &exitError{code: exitBug}

// Run executes the command line args (without the program's name) and
// returns its exit status. stdin is what the commands that read the
// terminal read: GDB and Delve sessions, stdbg dap without --listen, the
// program stdbg cc runs; nil reads nothing.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	line := translateCfg(args)
	root := newRootOf(stdin, stdout, stderr, commandNamed(line))
	root.SetArgs(line)
	err := root.Execute()
	if err == nil {
		return exitClean
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "stdbg: "+oneLine(toolchainAdvice(ee.err.Error(), args)))
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "stdbg: "+oneLine(toolchainAdvice(err.Error(), args)))
	return exitUsage
}

// oneLine keeps the first line of a message, and points at the rest.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	first, rest, ok := strings.Cut(s, "\n")
	if !ok {
		return s
	}
	return first + "\n" + rest
}

// translateCfg maps the SimGrid-style --cfg=model-check/KEY:VALUE spelling
// onto stdbg's own flags (--KEY=VALUE), so that commands copied from the
// paper keep working.
func translateCfg(args []string) []string {
	out := make([]string, 0, len(args))
	goTest := len(args) > 0 && args[0] == "test"
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		if goTest && len(a) > 2 && a[0] == '-' && a[1] != '-' && !strings.HasPrefix(a, "-v=") && !strings.HasPrefix(a, "-p=") && !strings.HasPrefix(a, "-j=") {
			// go test's spelling, one dash: -run=x, -count 1, -json.
			out = append(out, "-"+a)
			continue
		}
		if a == "-run" {
			// go test's spelling of the test selection.
			out = append(out, "--run")
			continue
		}
		if strings.HasPrefix(a, "-run=") {
			out = append(out, "-"+a)
			continue
		}
		var spec string
		switch {
		case strings.HasPrefix(a, "--cfg="):
			spec = strings.TrimPrefix(a, "--cfg=")
		case a == "--cfg" && i+1 < len(args):
			spec = args[i+1]
			i++
		default:
			out = append(out, a)
			continue
		}
		key, val, ok := strings.Cut(spec, ":")
		if !ok {
			out = append(out, "--cfg-invalid="+spec)
			continue
		}
		if j := strings.LastIndexByte(key, '/'); j >= 0 {
			key = key[j+1:]
		}
		out = append(out, "--"+key+"="+val)
	}
	return out
}
