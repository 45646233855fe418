package targetproc_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
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

// TestDeadlineCutsAStep checks that a step still running at the deadline
// of the phase under way (the budget's end) is cut there, not at the
// transition timeout: the step ends with the executor's search.ErrStepCut,
// no timeout found, and the next execution runs.
func TestDeadlineCutsAStep(t *testing.T) {
	exe := buildSource(t, "spin.c", `#include <pthread.h>
static volatile int flag;
static void *setter(void *a) { flag = 1; return a; }
int main(void) {
	pthread_t t;
	pthread_create(&t, 0, setter, 0);
	while (!flag)
		; /* spins without a yield: stdbg never switches here */
	pthread_join(t, 0);
	return 0;
}
`)
	p, c := startChecker(t, exe, targetproc.Config{Flags: wire.FlagFastExit, TransitionTimeout: 30 * time.Second})
	e, err := c.Begin()
	if err != nil {
		t.Fatal(err)
	}
	p.SetDeadline(time.Now().Add(200 * time.Millisecond))
	err = e.Step(schedule.Step{Thread: 1, Choice: schedule.NoChoice})
	e.Close()
	if !errors.Is(err, search.ErrStepCut) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("step: %v, outcome %+v; want the step cut at the deadline", err, e.Ended())
	}
	p.SetDeadline(time.Time{})
	e2, err := c.Begin()
	if err != nil {
		t.Fatalf("next execution after a cut: %v", err)
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
