package ctarget_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// startChecker starts exe under the library with cfg and returns its
// process and checker, both ended with the test.
func startChecker(t *testing.T, exe string, cfg targetproc.Config) (*targetproc.Process, *executor.Executor) {
	t.Helper()
	cfg.Binary = exe
	p, err := ctarget.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, executor.New(p, executor.Options{FastExit: cfg.Flags&wire.FlagFastExit != 0})
}

// TestDecisionLogReplay checks that the library follows a decision log
// alone: the same trace, the same end, and divergence when the log does
// not fit.
func TestDecisionLogReplay(t *testing.T) {
	exe, err := ctarget.Build(filepath.Join("..", "..", "examples", "c", "deadly-embrace.c"))
	if err != nil {
		t.Fatal(err)
	}
	lib, err := ctarget.Library()
	if err != nil {
		t.Fatal(err)
	}
	_, c := startChecker(t, exe, targetproc.Config{})
	logFor := func(s string) string {
		e, err := c.Begin()
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		sched, _ := schedule.Parse(s)
		if _, err := search.Replay(e, sched, 100); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "log")
		if err := ctarget.WriteDecisions(p, e.Trace(), "test"); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// run runs the program on a log. A program whose log ends in a
	// deadlock stays blocked, as the real one would: once its stderr says
	// stop (when stop is not empty), it is killed. The minute is a guard
	// against a hang only.
	run := func(log, stop string) (string, string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, exe)
		cmd.Env = append(os.Environ(), "STDBG_REPLAY="+log, "LD_PRELOAD="+lib)
		var out bytes.Buffer
		errw := &watchWriter{want: stop, seen: make(chan struct{})}
		cmd.Stdout, cmd.Stderr = &out, errw
		if err := cmd.Start(); err != nil {
			return "", "", err
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		var err error
		select {
		case err = <-exited:
		case <-errw.seen:
			cmd.Process.Kill()
			err = <-exited
		}
		return out.String(), errw.String(), err
	}

	// A clean schedule runs to its end.
	out, errs, err := run(logFor("1;1;1;1;1;1;1"), "")
	if err != nil || out != "4 transfers\n" {
		t.Fatalf("clean log: %v, stdout %q, stderr %q", err, out, errs)
	}

	// The deadlock: the program stops where the log ends and says so.
	dl := logFor("1;1;2;2")
	_, errs, err = run(dl, "end of the replayed schedule")
	if err == nil || !strings.Contains(errs, "end of the replayed schedule after 4 steps") {
		t.Fatalf("deadlock log: %v, stderr %q", err, errs)
	}

	// A log that does not fit: step 4 claims thread 2 unlocks.
	b, _ := os.ReadFile(dl)
	bad := strings.Replace(string(b), "\n2 6 0\n", "\n2 9 0\n", 1)
	if bad == string(b) {
		t.Fatalf("unexpected log:\n%s", b)
	}
	os.WriteFile(dl, []byte(bad), 0o644)
	_, errs, _ = run(dl, "replay diverged")
	if !strings.Contains(errs, "replay diverged at step 4: thread 2 is at another operation (the log expects mutex-unlock, the thread is at mutex-lock)") {
		t.Fatalf("divergence not reported: %q", errs)
	}

	// Not a log at all.
	junk := filepath.Join(t.TempDir(), "junk")
	os.WriteFile(junk, []byte("hello\n"), 0o644)
	_, errs, err = run(junk, "")
	if err == nil || !strings.Contains(errs, "not a stdbg decision log") {
		t.Fatalf("junk log: %v %q", err, errs)
	}
}

// watchWriter collects what is written and closes seen once it contains
// want (never when want is empty).
type watchWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	done bool
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.done && w.want != "" && strings.Contains(w.buf.String(), w.want) {
		w.done = true
		close(w.seen)
	}
	return len(p), nil
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
