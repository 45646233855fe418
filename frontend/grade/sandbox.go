package grade

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// This file confines a submission's processes: a directory of their own,
// resource limits, no network, and (run as root) a user of their own. See
// docs/teaching.md for what is enforced and what is not.

// Confinement says how a submission's processes are confined, as found on
// this machine (Probe).
type Confinement struct {
	// Limits: prlimit(1) sets the resource limits (CPU time, address
	// space, file size, processes) in the process before it runs the
	// program.
	Limits bool
	// NoNetwork: unshare -n gives the program a network namespace of its
	// own, with no interface but a loopback that is down.
	NoNetwork bool
	// User is the user id the program runs as (setpriv), -1 when it runs
	// as the grader's user (the grader is not root).
	User int
	// Missing says what could not be enforced, and why.
	Missing []string
}

// NobodyID is the user and group a submission runs as when the grader is
// root.
const NobodyID = 65534

var (
	probeOnce sync.Once
	probed    Confinement
)

// Probe finds what confinement this machine allows (once).
func Probe() Confinement {
	probeOnce.Do(func() { probed = probe() })
	return probed
}

func probe() Confinement {
	c := Confinement{User: -1}
	if _, err := exec.LookPath("prlimit"); err == nil {
		c.Limits = true
	} else {
		c.Missing = append(c.Missing, "prlimit(1) (util-linux) not found: no limits on CPU time, memory, processes or file size; only the wall-clock bound")
	}
	if path, err := exec.LookPath("unshare"); err == nil && exec.Command(path, "-n", "true").Run() == nil {
		c.NoNetwork = true
	} else {
		c.Missing = append(c.Missing, "unshare -n is not allowed here: the program may use the network")
	}
	if os.Geteuid() == 0 {
		if _, err := exec.LookPath("setpriv"); err == nil {
			c.User = NobodyID
		} else {
			c.Missing = append(c.Missing, "setpriv(1) not found: the program runs as root and could change any file")
		}
	} else {
		c.Missing = append(c.Missing, fmt.Sprintf("the grader is not root: the program runs as user %d, with that user's rights on files outside its directory, and no limit on processes", os.Geteuid()))
	}
	return c
}

// wrap is the command that runs a program confined with l (the prefix of
// its command line: it execs the program in the same process).
func (c Confinement) wrap(l Limits, race bool) []string {
	var w []string
	if c.NoNetwork {
		w = append(w, "unshare", "-n", "--")
	}
	if c.Limits {
		w = append(w, "prlimit",
			fmt.Sprintf("--cpu=%d", int64(l.CPU.seconds())),
			fmt.Sprintf("--fsize=%d", int64(l.FileMB)<<20),
			"--core=0")
		if !race {
			w = append(w, fmt.Sprintf("--as=%d", int64(l.MemoryMB)<<20))
		}
		if c.User >= 0 {
			// The count is the user's: only a user of the program's own
			// makes it the program's.
			w = append(w, fmt.Sprintf("--nproc=%d", l.Processes))
		}
		w = append(w, "--")
	}
	if c.User >= 0 {
		w = append(w, "setpriv", fmt.Sprintf("--reuid=%d", c.User), fmt.Sprintf("--regid=%d", c.User), "--clear-groups", "--")
	}
	return w
}

func (d Duration) seconds() float64 {
	s := float64(d) / 1e9
	if s < 1 {
		return 1
	}
	return s
}

// sandbox is the directory a submission is built and run in.
type sandbox struct {
	dir  string
	conf Confinement
}

// newSandbox makes a directory for one submission.
func newSandbox(conf Confinement) (*sandbox, error) {
	dir, err := os.MkdirTemp("", "stdbg-grade-")
	if err != nil {
		return nil, fmt.Errorf("making the submission's directory: %w", err)
	}
	// Its own user must reach the files in it (and in its parent,
	// os.TempDir, world-searchable).
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &sandbox{dir: dir, conf: conf}, nil
}

// close removes the directory and what the program left in it.
func (s *sandbox) close() { os.RemoveAll(s.dir) }

// workDir makes a directory for one build, holding files copied from
// their places (name -> path).
func (s *sandbox) workDir(name string, files map[string]string) (string, error) {
	d := filepath.Join(s.dir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", err
	}
	for dst, src := range files {
		if err := copyFile(filepath.Join(d, dst), src, 0o644); err != nil {
			return "", err
		}
	}
	return d, nil
}

// runDir makes the working directory of the program's processes: its own
// user owns it, so the program may write there and nowhere else of the
// grader's.
func (s *sandbox) runDir(build string) (string, error) {
	d := filepath.Join(build, "run")
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", err
	}
	if s.conf.User >= 0 {
		if err := os.Chown(d, s.conf.User, s.conf.User); err != nil {
			return "", fmt.Errorf("giving the program its directory: %w", err)
		}
	}
	return d, nil
}

// reachable returns a copy of file in dir that the program's user can
// read and run (stdbg's cache is under the grader's home, which it
// cannot), or file itself when the program runs as the grader's user.
func (s *sandbox) reachable(file, dir string) (string, error) {
	if s.conf.User < 0 {
		return file, nil
	}
	dst := filepath.Join(dir, filepath.Base(file))
	if err := copyFile(dst, file, 0o755); err != nil {
		return "", fmt.Errorf("copying %s for the program's user: %w", filepath.Base(file), err)
	}
	return dst, nil
}

func copyFile(dst, src string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, mode)
}

// describe says in one line what the confinement enforces.
func (c Confinement) describe() string {
	var on []string
	if c.Limits {
		on = append(on, "CPU time, memory, file size limits")
	}
	if c.User >= 0 {
		on = append(on, fmt.Sprintf("user %d with a process limit", c.User))
	}
	if c.NoNetwork {
		on = append(on, "no network")
	}
	if len(on) == 0 {
		return "wall-clock bound only"
	}
	return strings.Join(on, ", ") + ", wall-clock bound"
}
