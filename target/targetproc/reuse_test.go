package targetproc_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/internal/testkit/long"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// fresh is a program whose every execution checks that it starts from the
// state after the fork: variables, heap, thread-local storage, descriptors
// and mappings changed by an earlier execution must be back as they were.
const fresh = `#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "stdbg.h"

static int runs;        /* .bss */
static int seven = 7;   /* .data */
static char *heap;      /* a block allocated before the first thread */
static __thread int tls = 3;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int shared;

static void *worker(void *arg)
{
	pthread_mutex_lock(&m);
	shared++;
	pthread_mutex_unlock(&m);
	void *big = malloc(4 << 20); /* a mapping of its own */
	memset(big, 1, 4096);
	return arg;
}

int main(void)
{
	heap = malloc(32);
	strcpy(heap, "a");
	/* Shared with every execution: what the first one saw. */
	long *seen = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	pthread_t t[2];
	pthread_create(&t[0], NULL, worker, NULL); /* every execution starts here */
	runs++;
	seven++;
	heap[0]++;
	tls++;
	stdbg_assert(runs == 1 && seven == 8 && heap[0] == 'b' && tls == 4, "memory left over from an earlier execution");
	stdbg_assert(fcntl(500, F_GETFD) < 0, "a high descriptor left open by an earlier execution");
	long fd = open("/dev/null", O_RDONLY);
	dup2((int)fd, 500);
	long p = (long)mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!seen[0]) {
		seen[0] = fd + 1;
		seen[1] = p;
	}
	stdbg_assert(fd + 1 == seen[0], "a descriptor left open by an earlier execution");
	stdbg_assert(p == seen[1], "a mapping left by an earlier execution");
	pthread_create(&t[1], NULL, worker, NULL);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	stdbg_assert(shared == 2, "lost update");
	return 0;
}
`

// exhaustC explores exe exhaustively with DFS and returns the result and
// how many executions reused a child.
func exhaustC(t *testing.T, exe string, cfg targetproc.Config, maxDepth int) (*search.Result, int64) {
	return exhaustWith(t, exe, cfg, maxDepth, search.NewDFS())
}

// exhaustWith is exhaustC with a strategy of the caller's.
func exhaustWith(t *testing.T, exe string, cfg targetproc.Config, maxDepth int, st search.Strategy) (*search.Result, int64) {
	t.Helper()
	cfg.Flags |= wire.FlagFastExit
	cfg.KeepThreads = true
	p, c := startChecker(t, exe, cfg)
	res, err := search.Explore(context.Background(), c, st, search.Options{MaxDepth: maxDepth, All: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete {
		t.Fatal("exploration incomplete")
	}
	return res, p.Reused()
}

func TestReuseStartsFromTheFork(t *testing.T) {
	exe := buildSource(t, "fresh.c", fresh)
	res, reused := exhaustC(t, exe, targetproc.Config{}, 1000)
	for _, b := range res.Bugs {
		t.Errorf("%s: %s (path %s)", b.Outcome.Kind, b.Outcome.Message, b.Schedule)
	}
	if res.Stats.Executions < 10 {
		t.Fatalf("only %d executions", res.Stats.Executions)
	}
	if reused < res.Stats.Executions-1 {
		t.Errorf("%d of %d executions reused a child, want all but the first", reused, res.Stats.Executions)
	}
}

// closesStdin closes descriptor 0, one of the snapshot's, in every
// execution, and checks that it is open when the execution starts.
const closesStdin = `#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>
#include "stdbg.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int shared;

static void *worker(void *arg)
{
	pthread_mutex_lock(&m);
	shared++;
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t t[2];
	pthread_create(&t[0], NULL, worker, NULL); /* every execution starts here */
	stdbg_assert(fcntl(0, F_GETFD) >= 0, "descriptor 0, closed by an earlier execution, left closed");
	pthread_create(&t[1], NULL, worker, NULL);
	pthread_mutex_lock(&m);
	shared++;
	pthread_mutex_unlock(&m);
	close(0);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	return 0;
}
`

// TestReuseRefusedAfterClose checks that a child whose execution closed a
// descriptor of the snapshot is not reused: the reset cannot open it again.
func TestReuseRefusedAfterClose(t *testing.T) {
	exe := buildSource(t, "closes-stdin.c", closesStdin)
	res, reused := exhaustC(t, exe, targetproc.Config{}, 1000)
	for _, b := range res.Bugs {
		t.Errorf("%s: %s (path %s)", b.Outcome.Kind, b.Outcome.Message, b.Schedule)
	}
	if res.Stats.Executions < 3 {
		t.Fatalf("only %d executions", res.Stats.Executions)
	}
	if reused != 0 {
		t.Errorf("%d of %d executions reused a child whose descriptor 0 was closed", reused, res.Stats.Executions)
	}
}

// TestThreadLocalFresh checks that threads kept parked between executions
// start each one with their thread-local storage (a __thread variable, a
// buffer, errno) as a new thread would: the workers of thread-local.c
// assert it, and change it, in every schedule.
func TestThreadLocalFresh(t *testing.T) {
	p, res := exploreBundled(t, "thread-local.c")
	if res.Stats.Executions < 6 {
		t.Fatalf("only %d executions", res.Stats.Executions)
	}
	if p.Pooled() != 3 || p.Reused() < res.Stats.Executions-1 {
		t.Errorf("%d threads kept parked, %d of %d executions in a reset child: want 3, all but the first",
			p.Pooled(), p.Reused(), res.Stats.Executions)
	}
}

// exploreBundled exhausts a bundled example with DPOR and fails the test
// on any bug; it returns the process and the result.
func exploreBundled(t *testing.T, name string) (*targetproc.Process, *search.Result) {
	t.Helper()
	exe, err := ctarget.Build(filepath.Join("..", "..", "examples", "c", name))
	if err != nil {
		t.Fatal(err)
	}
	p, c := startChecker(t, exe, targetproc.Config{Flags: wire.FlagFastExit, KeepThreads: true})
	res, err := search.Explore(context.Background(), c, search.NewDPOR(), search.Options{MaxDepth: 1000, All: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range res.Bugs {
		t.Errorf("%s: %s (path %s)", b.Outcome.Kind, b.Outcome.Message, b.Schedule)
	}
	if !res.Complete {
		t.Fatalf("incomplete after %d executions", res.Stats.Executions)
	}
	return p, res
}

// TestThreadKeysEndThreads checks a program whose threads hold pthread
// keys with destructors: an execution that created a key starts real
// threads (the destructors are glibc's to run), and every execution still
// starts in a reset child.
func TestThreadKeysEndThreads(t *testing.T) {
	p, res := exploreBundled(t, "thread-key.c")
	if res.Stats.Executions < 2 || p.Reused() < res.Stats.Executions-1 {
		t.Errorf("%d of %d executions in a reset child, want all but the first", p.Reused(), res.Stats.Executions)
	}
}

// TestReuseRefusedAfterKernelChanges checks that an execution that changes
// what a reset cannot restore (here a signal handler) is followed by a
// fresh fork.
func TestReuseRefusedAfterKernelChanges(t *testing.T) {
	exe := buildSource(t, "handler.c", `#include <pthread.h>
#include <signal.h>
#include "stdbg.h"
static void on_usr1(int sig) { (void)sig; }
static void *worker(void *arg) { stdbg_yield(); return arg; }
int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	stdbg_assert(signal(SIGUSR1, on_usr1) == SIG_DFL, "a handler set by an earlier execution");
	stdbg_yield();
	pthread_join(t, NULL);
	return 0;
}
`)
	res, reused := exhaustC(t, exe, targetproc.Config{}, 1000)
	for _, b := range res.Bugs {
		t.Errorf("%s: %s (path %s)", b.Outcome.Kind, b.Outcome.Message, b.Schedule)
	}
	if reused != 0 {
		t.Errorf("%d executions reused a child that changed a signal handler", reused)
	}
}

// threads is a program whose threads have a stack size of their own, a
// stack the program provides and, with DETACHED 1, a detached one; each
// grows the heap.
const threads = `#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "stdbg.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int done;
static __thread char buf[64];
static char own_stack[256 * 1024] __attribute__((aligned(64)));

static void *work(void *arg)
{
	char here;
	if ((long)arg == 2)
		stdbg_assert(&here >= own_stack && &here < own_stack + sizeof own_stack, "not on the program's own stack");
	snprintf(buf, sizeof buf, "t%ld", (long)arg);
	char *p = malloc(300 * 1024); /* above the usual mmap threshold */
	memset(p, 7, 4096);
	pthread_mutex_lock(&m);
	done++;
	pthread_mutex_unlock(&m);
	free(p);
	return arg;
}

int main(void)
{
	pthread_attr_t small, own;
	pthread_attr_init(&small);
	pthread_attr_setstacksize(&small, 64 * 1024);
	pthread_attr_init(&own);
	pthread_attr_setstack(&own, own_stack, sizeof own_stack);
	pthread_t a, b;
	pthread_create(&a, &small, work, (void *)1);
	pthread_create(&b, &own, work, (void *)2);
	if (DETACHED) {
		pthread_attr_t det;
		pthread_attr_init(&det);
		pthread_attr_setdetachstate(&det, PTHREAD_CREATE_DETACHED);
		pthread_t c;
		pthread_create(&c, &det, work, (void *)3);
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	stdbg_yield();
	pthread_mutex_lock(&m);
	stdbg_assert(done >= 2 && done <= 2 + DETACHED, "joined threads counted");
	pthread_mutex_unlock(&m);
	return 0;
}
`

// compareReuse explores exe up to maxDepth with and without reuse, fails
// the test when the two searches differ in executions, transitions or bugs,
// and returns the search with reuse and how many of its executions reused a
// child.
func compareReuse(t *testing.T, exe string, maxDepth int) (*search.Result, int64) {
	return compareReuseWith(t, exe, maxDepth, search.NewDFS)
}

// compareReuseWith is compareReuse with a strategy of the caller's (a
// deterministic one: both searches must run the same executions).
func compareReuseWith(t *testing.T, exe string, maxDepth int, st func() search.Strategy) (*search.Result, int64) {
	t.Helper()
	with, reused := exhaustWith(t, exe, targetproc.Config{}, maxDepth, st())
	without, none := exhaustWith(t, exe, targetproc.Config{NoReuse: true}, maxDepth, st())
	if none != 0 {
		t.Errorf("NoReuse: %d executions reused a child", none)
	}
	if with.Stats.Executions != without.Stats.Executions || with.Stats.Transitions != without.Stats.Transitions {
		t.Errorf("with reuse %d executions, %d transitions; without %d, %d", with.Stats.Executions,
			with.Stats.Transitions, without.Stats.Executions, without.Stats.Transitions)
	}
	if a, b := bugKeys(with), bugKeys(without); !slices.Equal(a, b) {
		t.Errorf("bugs with reuse %v, without %v", a, b)
	}
	return with, reused
}

// TestReuseThreadAttributes checks threads with a stack size of their own
// and with a stack the program provides, which grow the heap: every
// execution reuses a child and finds what forking every execution finds.
func TestReuseThreadAttributes(t *testing.T) {
	exe := buildSource(t, "attrs.c", "#define DETACHED 0\n"+threads)
	with, reused := compareReuse(t, exe, 10)
	for _, b := range with.Bugs {
		t.Errorf("%s: %s (path %s)", b.Outcome.Kind, b.Outcome.Message, b.Schedule)
	}
	if reused < with.Stats.Executions-1 {
		t.Errorf("%d of %d executions reused a child", reused, with.Stats.Executions)
	}
}

// TestReuseDetached checks that an execution with a detached thread is
// followed by a fresh fork, and finds what forking every execution finds.
func TestReuseDetached(t *testing.T) {
	exe := buildSource(t, "detached.c", "#define DETACHED 1\n"+threads)
	// Every whole execution creates the detached thread, so every one
	// must be followed by a fresh fork; DPOR, unbounded, runs whole
	// executions only, and far fewer of those (slow) forks than every
	// schedule up to a depth.
	res, reused := compareReuseWith(t, exe, 1000, search.NewDPOR)
	if res.Stats.Executions < 10 {
		t.Fatalf("only %d executions", res.Stats.Executions)
	}
	if reused != 0 {
		t.Errorf("%d executions reused a child after a detached thread", reused)
	}
}

// TestReuseSameSearch checks that reusing children changes nothing a search
// finds: the same executions, transitions and bugs on the bundled examples.
func TestReuseSameSearch(t *testing.T) {
	for _, tt := range []struct {
		example string
		depth   int
		long    int // with -e2e.long, this depth instead (the costliest searches)
	}{
		{"deadly-embrace.c", 20, 0},
		{"leader-election.c", 1000, 0},
		{"producer-consumer-if.c", 14, 0},
		{"cxx-bank.cpp", 18, 0},
		{"c11-counter.c", 12, 0},
		{"aba-stack.c", 9, 12},
		{"barrier-phases.c", 14, 0},
		{"once-init.c", 1000, 0},
		{"rwlock-readers.c", 20, 0},
		{"crash-null.c", 1000, 0},
	} {
		t.Run(tt.example, func(t *testing.T) {
			depth := tt.depth
			if tt.long > 0 && long.Enabled() {
				depth = tt.long
			}
			exe, err := ctarget.Build(filepath.Join("..", "..", "examples", "c", tt.example))
			if err != nil {
				t.Fatal(err)
			}
			// DPOR: the executions that matter, several times fewer
			// than every schedule (what reuse must not change is the
			// same either way).
			if _, reused := compareReuseWith(t, exe, depth, search.NewDPOR); reused == 0 {
				t.Errorf("no execution reused a child")
			}
		})
	}
}

func bugKeys(r *search.Result) []string {
	var keys []string
	for _, b := range r.Bugs {
		// Kind and schedule: places are addresses here, which differ
		// between two runs of the program.
		keys = append(keys, b.Outcome.Kind.String()+" "+b.Schedule.String())
	}
	slices.Sort(keys)
	return keys
}

// TestReuseProbeChildWithoutThreads: a program that starts no thread keeps
// no pool, which the probe execution (executor.Pooler) finds with the
// pool it already has: its child serves the first execution of the search
// reset instead of being killed for a new fork, and every execution runs
// in a reset child.
func TestReuseProbeChildWithoutThreads(t *testing.T) {
	exe := buildSource(t, "nothreads.c", `#include <stdatomic.h>
static atomic_int x;
int main(void)
{
	atomic_fetch_add(&x, 1);
	atomic_fetch_add(&x, 1);
	return atomic_load(&x) == 2 ? 0 : 1;
}
`)
	res, reused := exhaustC(t, exe, targetproc.Config{}, 1000)
	for _, b := range res.Bugs {
		t.Errorf("%s: %s (path %s)", b.Outcome.Kind, b.Outcome.Message, b.Schedule)
	}
	if res.Stats.Executions != 1 || reused != 1 {
		t.Errorf("%d executions, %d of them in a reset child: want 1, in the probe's child", res.Stats.Executions, reused)
	}
}
