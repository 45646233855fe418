package targetproc_test

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

	"github.com/stdbg/stdbg/ctarget"
	"github.com/stdbg/stdbg/executor"
	"github.com/stdbg/stdbg/schedule"
	"github.com/stdbg/stdbg/search"
	"github.com/stdbg/stdbg/targetproc"
	"github.com/stdbg/stdbg/wire"
)

// buildSource writes a C program into a temporary directory and builds it.
func buildSource(t *testing.T, name, text string) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := ctarget.Build(src)
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

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

func TestTransitionTimeout(t *testing.T) {
	exe := buildSource(t, "spin.c", `#include <pthread.h>
static volatile int flag;
#include <sched.h>
static void *setter(void *a) { sched_yield(); flag = 1; return a; }
int main(void) {
	pthread_t t;
	pthread_create(&t, 0, setter, 0);
	while (!flag)
		; /* spins without a yield: stdbg never switches here */
	pthread_join(t, 0);
	return 0;
}
`)
	_, c := startChecker(t, exe, targetproc.Config{Flags: wire.FlagFastExit, TransitionTimeout: 300 * time.Millisecond})
	e, err := c.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	start := time.Now()
	if err := e.Step(schedule.Step{Thread: 1, Choice: schedule.NoChoice}); err != nil {
		t.Fatal(err)
	}
	o := e.Ended()
	if o == nil || o.Kind != search.Timeout {
		t.Fatalf("outcome %+v, want a timeout", o)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("the timeout took %v", waited)
	}
	to := e.TimedOut()
	if to == nil || to.Tid != 1 || len(to.Frames) == 0 {
		t.Fatalf("timeout event %+v: want thread 1 with its stack", to)
	}
	// The checker stays usable after a timeout.
	e2, err := c.Begin()
	if err != nil {
		t.Fatalf("next execution after a timeout: %v", err)
	}
	e2.Close()
}

func TestSilentDeath(t *testing.T) {
	exe := buildSource(t, "die.c", `#include <pthread.h>
#include <unistd.h>
#include <sys/syscall.h>
static void *quit(void *a) { syscall(SYS_exit_group, 3); return a; }
int main(void) {
	pthread_t t;
	pthread_create(&t, 0, quit, 0);
	pthread_join(t, 0);
	return 0;
}
`)
	_, c := startChecker(t, exe, targetproc.Config{Flags: wire.FlagFastExit})
	res, err := search.Explore(context.Background(), c, search.NewDFS(), search.Options{MaxDepth: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) == 0 || res.Bugs[0].Outcome.Kind != search.Crash ||
		!strings.Contains(res.Bugs[0].Outcome.Message, "exited with status 3") {
		t.Fatalf("bugs %+v, want a crash naming status 3", res.Bugs)
	}
}

func TestCrashBeforeFirstOperation(t *testing.T) {
	exe := buildSource(t, "early.c", `int main(void) { volatile int *p = 0; return *p; }
`)
	_, err := ctarget.Start(targetproc.Config{Binary: exe})
	if err == nil || !strings.Contains(err.Error(), "ended before its first thread operation") ||
		!strings.Contains(err.Error(), "signal 11") {
		t.Fatalf("err = %v", err)
	}
}

// TestDecisionLogReplay checks that the library follows a decision log
// alone: the same trace, the same end, and divergence when the log does
// not fit.
func TestDecisionLogReplay(t *testing.T) {
	exe, err := ctarget.Build(filepath.Join("..", "examples", "c", "deadly-embrace.c"))
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
