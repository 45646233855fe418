// Package targettmp gives each process of a checked program a temporary
// directory of its own, removed when the process has ended.
//
// A search ends executions where a program would not end on its own: a
// process per execution killed at its end, a test whose search ends the
// test binary with os.Exit before package testing runs its cleanups. What
// the program made under the system's temporary directory (t.TempDir,
// os.MkdirTemp, os.CreateTemp) would stay there, one directory per
// execution or per test searched. Pointing TMPDIR at a directory of the
// process's own, removed once the process is gone, leaves nothing behind;
// the program sees an ordinary, empty, writable temporary directory.
package targettmp

import (
	"os"
	"strings"
)

// Dir is a temporary directory made for one process.
type Dir struct {
	path string
}

// New makes a directory for one process under the system's temporary
// directory (os.TempDir, which honours the caller's TMPDIR). shared makes
// it writable by every user (mode 1777, as /tmp), for a process that runs
// as another user. On failure it returns a Dir that changes nothing: the
// process then uses the caller's temporary directory, as before.
func New(shared bool) *Dir {
	path, err := os.MkdirTemp("", "stdbg-tmp-")
	if err != nil {
		return &Dir{}
	}
	if shared {
		if err := os.Chmod(path, 0o777|os.ModeSticky); err != nil {
			os.Remove(path)
			return &Dir{}
		}
	}
	return &Dir{path: path}
}

// Path is the directory, "" if none could be made.
func (d *Dir) Path() string { return d.path }

// Env returns env with TMPDIR set to the directory (env unchanged if there
// is none). env is not modified.
func (d *Dir) Env(env []string) []string {
	if d.path == "" {
		return env
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMPDIR=") {
			out = append(out, kv)
		}
	}
	return append(out, "TMPDIR="+d.path)
}

// Remove removes the directory and everything in it. Call it once the
// process (and any process it started in its group) has ended. It may be
// called more than once.
func (d *Dir) Remove() {
	if d.path == "" {
		return
	}
	os.RemoveAll(d.path)
	d.path = ""
}
