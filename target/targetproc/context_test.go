package targetproc_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// kernelThreads asks the kernel which thread each of the program's threads
// runs on, with a system call the C library does not see, and fails when
// two share one: as they do when they run as contexts. IMPORT adds a call
// that keeps contexts off.
const kernelThreads = `#include <pthread.h>
#include <signal.h>
#include "stdbg.h"

static long ktid(void)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"(186L) : "rcx", "r11", "memory"); /* gettid */
	return r;
}

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long seen[3];

static void *worker(void *arg)
{
	pthread_mutex_lock(&m);
	seen[(long)arg] = ktid();
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(void)
{
	if (IMPORT)
		raise(0);
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	pthread_mutex_lock(&m);
	seen[0] = ktid();
	pthread_mutex_unlock(&m);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	stdbg_assert(seen[1] != seen[0] && seen[2] != seen[0] && seen[1] != seen[2], "threads share a kernel thread");
	return 0;
}
`

// TestContextsShareKernelThread checks where the program's threads run: as
// contexts on one kernel thread by default, on threads of their own with
// Config.NoContexts, and also when the program imports a call that could
// tell the difference (raise sends a signal to the calling kernel thread).
func TestContextsShareKernelThread(t *testing.T) {
	for _, tc := range []struct {
		name       string
		imports    bool
		noContexts bool
		shared     bool
	}{
		{"contexts", false, false, true},
		{"no contexts", false, true, false},
		{"denied import", true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			imp := "0"
			if tc.imports {
				imp = "1"
			}
			exe := buildSource(t, "ktid.c", strings.Replace(kernelThreads, "IMPORT", imp, 1))
			p, c := startChecker(t, exe, targetproc.Config{Flags: wire.FlagFastExit, KeepThreads: true, NoContexts: tc.noContexts})
			res, err := search.Explore(context.Background(), c, search.NewDPOR(), search.Options{MaxDepth: 1000, All: true})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Complete || p.Pooled() != 2 {
				t.Fatalf("complete %v, %d threads kept; want a complete search with 2 kept", res.Complete, p.Pooled())
			}
			if got := len(res.Bugs) > 0; got != tc.shared {
				t.Errorf("threads shared a kernel thread: %v, want %v (%d executions)", got, tc.shared, res.Stats.Executions)
			}
		})
	}
}

// exits ends its threads in the ways a context cannot end on the main
// kernel thread: one calls pthread_exit, another creates a pthread key
// (whose destructor glibc runs when the thread really ends), and each
// takes a mutex on the way.
const exits = `#include <pthread.h>
#include <stdlib.h>
#include "stdbg.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t key;
static int total;

static void *quitter(void *arg)
{
	pthread_mutex_lock(&m);
	total++;
	pthread_mutex_unlock(&m);
	pthread_exit(arg);
}

static void *keeper(void *arg)
{
	pthread_key_create(&key, free);
	pthread_setspecific(key, malloc(8));
	pthread_mutex_lock(&m);
	total++;
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t q, k;
	pthread_create(&q, NULL, quitter, (void *)1);
	pthread_create(&k, NULL, keeper, (void *)2);
	pthread_mutex_lock(&m);
	total++;
	pthread_mutex_unlock(&m);
	void *rq, *rk;
	pthread_join(q, &rq);
	pthread_join(k, &rk);
	stdbg_assert(rq == (void *)1 && rk == (void *)2 && total == 3, "lost a result");
	return 0;
}
`

// TestContextsSameSearch checks that running the program's threads as
// contexts changes nothing a search finds: the same executions,
// transitions and bugs as with threads, on bundled programs with bugs and
// without, with thread-local storage, with keys (threads that are not
// kept, beside main's context) and with threads that must end for real.
func TestContextsSameSearch(t *testing.T) {
	type prog struct{ name, exe string }
	var progs []prog
	for _, name := range []string{"deadly-embrace.c", "dpor/readers-writers.c", "lost-update.c", "dining-philosophers.c",
		"thread-local.c", "thread-key.c", "dpor/prodcons.c"} {
		exe, err := ctarget.Build(filepath.Join("..", "..", "examples", "c", name))
		if err != nil {
			t.Fatal(err)
		}
		progs = append(progs, prog{name, exe})
	}
	progs = append(progs, prog{"exits.c", buildSource(t, "exits.c", exits)})
	for _, pr := range progs {
		t.Run(pr.name, func(t *testing.T) {
			run := func(noContexts bool) *search.Result {
				_, c := startChecker(t, pr.exe, targetproc.Config{Flags: wire.FlagFastExit, KeepThreads: true, NoContexts: noContexts})
				res, err := search.Explore(context.Background(), c, search.NewDPOR(), search.Options{MaxDepth: 1000, All: true})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			with, without := run(false), run(true)
			if with.Stats.Executions != without.Stats.Executions || with.Stats.Transitions != without.Stats.Transitions || !with.Complete {
				t.Errorf("with contexts %d executions, %d transitions (complete %v); without %d, %d",
					with.Stats.Executions, with.Stats.Transitions, with.Complete, without.Stats.Executions, without.Stats.Transitions)
			}
			if got, want := bugList(with), bugList(without); !reflect.DeepEqual(got, want) {
				t.Errorf("bugs with contexts %v, without %v", got, want)
			}
		})
	}
}

// roundingUp sets rounding towards +infinity in main, with the control
// words themselves (x87 and SSE), after its first thread operation, then
// checks that the threads it creates
// start with it, as threads created by clone do: their division rounds
// as main's did.
const roundingUp = `#include <pthread.h>
#include <stdint.h>
#include "stdbg.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile double one = 1.0, three = 3.0;
static double mains;

static void round_up(void)
{
	uint16_t cw;
	uint32_t mx;
	__asm__ volatile("fnstcw %0" : "=m"(cw));
	cw = (uint16_t)((cw & ~0x0c00) | 0x0800);
	__asm__ volatile("fldcw %0" ::"m"(cw));
	__asm__ volatile("stmxcsr %0" : "=m"(mx));
	mx = (mx & ~0x6000u) | 0x4000u;
	__asm__ volatile("ldmxcsr %0" ::"m"(mx));
}

static void *worker(void *arg)
{
	uint16_t cw;
	__asm__ volatile("fnstcw %0" : "=m"(cw));
	double mine = one / three;
	pthread_mutex_lock(&m);
	stdbg_assert((cw & 0x0c00) == 0x0800 && mine == mains, "a new thread does not round as its creator");
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	/* After the first scheduling point: not in the process the
	 * executions start from. */
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	round_up();
	mains = one / three;
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
`

// TestNewThreadsRoundAsTheirCreator checks that a new thread starts with
// its creator's floating-point control words whether it is created for
// real, handed to a kept thread or run as a context.
func TestNewThreadsRoundAsTheirCreator(t *testing.T) {
	exe := buildSource(t, "rounding.c", roundingUp)
	for _, tc := range []struct {
		name             string
		keep, noContexts bool
	}{
		{"threads", false, true},
		{"pool", true, true},
		{"contexts", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, c := startChecker(t, exe, targetproc.Config{Flags: wire.FlagFastExit, KeepThreads: tc.keep, NoContexts: tc.noContexts})
			res, err := search.Explore(context.Background(), c, search.NewDPOR(), search.Options{MaxDepth: 1000, All: true})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Complete || res.Stats.Executions < 3 {
				t.Fatalf("complete %v after %d executions", res.Complete, res.Stats.Executions)
			}
			if kept := p.Pooled() == 2; kept != tc.keep {
				t.Fatalf("%d threads kept", p.Pooled())
			}
			for _, b := range res.Bugs {
				t.Errorf("%s: %s (path %s)", b.Outcome.Kind, b.Outcome.Message, b.Schedule)
			}
		})
	}
}

// blockedSignal blocks a signal in main after its first thread operation
// and checks that the threads it creates start with it blocked, as
// threads created by clone do. (Importing pthread_sigmask keeps contexts
// off.)
const blockedSignal = `#include <pthread.h>
#include <signal.h>
#include "stdbg.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	sigset_t cur;
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	pthread_mutex_lock(&m);
	stdbg_assert(sigismember(&cur, SIGUSR1), "a new thread does not have its creator's signal mask");
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
`

// TestNewThreadsHaveTheirCreatorsMask checks that a new thread starts with
// its creator's signal mask whether it is created for real or handed to a
// kept thread.
func TestNewThreadsHaveTheirCreatorsMask(t *testing.T) {
	exe := buildSource(t, "mask.c", blockedSignal)
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("kept=%v", keep), func(t *testing.T) {
			p, c := startChecker(t, exe, targetproc.Config{Flags: wire.FlagFastExit, KeepThreads: keep})
			res, err := search.Explore(context.Background(), c, search.NewDPOR(), search.Options{MaxDepth: 1000, All: true})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Complete || res.Stats.Executions < 2 || (p.Pooled() == 2) != keep {
				t.Fatalf("complete %v after %d executions, %d threads kept", res.Complete, res.Stats.Executions, p.Pooled())
			}
			for _, b := range res.Bugs {
				t.Errorf("%s: %s (path %s)", b.Outcome.Kind, b.Outcome.Message, b.Schedule)
			}
		})
	}
}
