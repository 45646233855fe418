package targetproc_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// TestCloseEndsChildren checks that when Close returns no process of the
// program is left: the child the last execution ran in, parked for the
// next one in a reused process or a fresh fork, is killed and reaped by
// the fork server before the server leaves. (It used to be orphaned and to
// leave only at its next check that the server lived, 100 ms later, while
// stdbg waited for it to close the program's output.)
func TestCloseEndsChildren(t *testing.T) {
	exe := buildSource(t, "two.c", `#include <pthread.h>
static void *work(void *a) { return a; }
int main(void) { pthread_t t; pthread_create(&t, 0, work, 0); pthread_join(t, 0); return 0; }
`)
	for _, tc := range []struct {
		name  string
		reuse bool
	}{{"reused", true}, {"forked", false}} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ctarget.Start(targetproc.Config{Binary: exe, Flags: wire.FlagFastExit, NoReuse: !tc.reuse, KeepThreads: true})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			c := executor.New(p, executor.Options{FastExit: true})
			res, err := search.Explore(context.Background(), c, search.NewDPOR(), search.Options{All: true})
			if err != nil || !res.Complete {
				t.Fatalf("explore: %v (complete %v)", err, res.Complete)
			}
			kid := p.ChildPid()
			if tc.reuse && kid == 0 {
				t.Fatal("no child parked after the search")
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			for _, pid := range []int{kid, p.Pid()} {
				if pid == 0 {
					continue
				}
				if err := unix.Kill(pid, 0); !errors.Is(err, unix.ESRCH) {
					t.Errorf("process %d of the program still exists after Close (kill 0: %v)", pid, err)
				}
			}
		})
	}
}

// TestStartNeedsLibrary checks that a program to run with a library
// preloaded is refused, with the reason, when none is named, and runs with
// the one named (ctarget.Start names stdbg's).
func TestStartNeedsLibrary(t *testing.T) {
	exe := buildSource(t, "one.c", `#include <pthread.h>
static void *work(void *a) { return a; }
int main(void) { pthread_t t; pthread_create(&t, 0, work, 0); pthread_join(t, 0); return 0; }
`)
	lib, err := ctarget.Library()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, lib string
		err       string
	}{
		{"none", "", "no interposition library to preload"},
		{"stdbg's", lib, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := targetproc.Start(targetproc.Config{Binary: exe, Library: tc.lib, Flags: wire.FlagFastExit})
			if tc.err != "" {
				if err == nil {
					p.Close()
				}
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Start without a library: %v, want an error saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			res, err := search.Explore(context.Background(), executor.New(p, executor.Options{FastExit: true}), search.NewDFS(), search.Options{})
			if err != nil || !res.Complete || len(res.Bugs) != 0 {
				t.Fatalf("explore: %v, complete %v, bugs %v", err, res.Complete, res.Bugs)
			}
		})
	}
}

// TestCloseEndsWhatTheProgramStarted checks that the processes a program
// starts and leaves running (a test's peer processes, a daemon) do not
// outlive it: when Close returns, the process each execution forked, which
// would sleep for ten minutes, is gone.
func TestCloseEndsWhatTheProgramStarted(t *testing.T) {
	exe := buildSource(t, "daemon.c", `#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static void *work(void *a) { return a; }
int main(void) {
	pid_t kid = fork();
	if (kid == 0) { sleep(600); _exit(0); }
	FILE *f = fopen(getenv("KIDS"), "a");
	fprintf(f, "%d\n", (int)kid);
	fclose(f);
	pthread_t t; pthread_create(&t, 0, work, 0); pthread_join(t, 0);
	return 0;
}
`)
	kids := filepath.Join(t.TempDir(), "kids")
	p, c := startChecker(t, exe, targetproc.Config{Flags: wire.FlagFastExit, Env: append(os.Environ(), "KIDS="+kids)})
	res, err := search.Explore(context.Background(), c, search.NewDPOR(), search.Options{All: true})
	if err != nil || !res.Complete {
		t.Fatalf("explore: %v (complete %v)", err, res.Complete)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(kids)
	if err != nil {
		t.Fatal(err)
	}
	pids := strings.Fields(string(text))
	if len(pids) == 0 {
		t.Fatal("the program started no process")
	}
	for _, s := range pids {
		pid, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		// A process killed but not yet reaped by init may linger a moment.
		gone := false
		for range 100 {
			if unix.Kill(pid, 0) != nil || zombie(pid) {
				gone = true
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if !gone {
			t.Errorf("process %d, which the program started, still runs after Close", pid)
			unix.Kill(pid, unix.SIGKILL)
		}
	}
}

// zombie reports whether process pid has ended and waits to be reaped.
func zombie(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// pid (comm) state ...: the state follows the last parenthesis.
	i := strings.LastIndexByte(string(stat), ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}
