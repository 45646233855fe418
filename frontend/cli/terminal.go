package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
)

// This file holds how stdbg shares the terminal with the programs and
// tools it runs.

// lockedWriter serialises writes: during replay the program's output and
// stdbg's report may share a destination.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// file returns the underlying *os.File, so that a child process can write
// to it directly, or nil.
func (l *lockedWriter) file() *os.File {
	f, _ := l.w.(*os.File)
	return f
}

// direct returns the file behind w when w is a lockedWriter around one, so
// that a child process writes to it directly (no copying, and its output
// interleaves with stdbg's in the order it happens); otherwise w.
func direct(w io.Writer) io.Writer {
	if lw, ok := w.(*lockedWriter); ok && lw.file() != nil {
		return lw.file()
	}
	return w
}

// runOnTerminal runs what, an interactive tool (GDB, dlv connect), with stdin and
// stdbg's output, and waits for it. An interrupt (^C) is the tool's to
// handle: stdbg ignores it meanwhile. The tool's exit status becomes
// stdbg's; failing to run it is exit 2.
func (a *app) runOnTerminal(what string, c *exec.Cmd, stdin io.Reader) error {
	c.Stdin = stdin
	c.Stdout, c.Stderr = direct(a.stdout), direct(a.stderr)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	err := c.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return &exitError{code: ee.ExitCode()}
	default:
		return &exitError{code: exitUsage, err: fmt.Errorf("running %s: %w", what, err)}
	}
}
