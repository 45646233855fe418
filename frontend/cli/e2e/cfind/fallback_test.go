package cfind

import (
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// A C program that asks the kernel which thread it runs on, without the C
// library, sees its threads share one kernel thread when they run as
// contexts: the failure does not reproduce in a fresh process, and find
// searches again with real threads and finds nothing.
func TestContextsFallBack(t *testing.T) {
	t.Parallel()
	src := clirun.WriteFile(t, t.TempDir(), "ktid.c", `#include <pthread.h>
#include "stdbg.h"

static long ktid(void)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"(186L) : "rcx", "r11", "memory"); /* gettid */
	return r;
}

static long seen[2];

static void *worker(void *arg)
{
	seen[1] = ktid();
	return arg;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	seen[0] = ktid();
	pthread_join(t, NULL);
	stdbg_assert(seen[0] != seen[1], "threads share a kernel thread");
	return 0;
}
`)
	out, errs, code := clirun.Stdbg(t, "find", src)
	if code != cli.ExitClean || !strings.Contains(out, "No property violation found.") ||
		!strings.Contains(errs, "searching again with real threads") {
		t.Fatalf("find: exit %d\n%s\n%s", code, out, errs)
	}
}
