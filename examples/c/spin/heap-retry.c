/* A bounded retry that counts its tries on the heap: the same bug as
 * tls-retry.c, its count in a block main allocated.
 *
 *   stdbg find examples/c/spin/heap-retry.c
 *
 * The loop's own frame is the same at every turn (a helper counts), but
 * the store to the count is a write the checker sees: the iteration
 * changed something (docs/spin.md). */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

static atomic_int posted;

static void count_try(int *tries)
{
	(*tries)++;
}

static void *worker(void *arg)
{
	int *tries = arg;
	while (!atomic_load(&posted)) {
		count_try(tries);
		if (*tries == 5)
			assert(!"the worker gave up before the job was posted");
		sched_yield();
	}
	return NULL;
}

int main(void)
{
	int *tries = calloc(1, sizeof *tries);
	pthread_t t;
	pthread_create(&t, NULL, worker, tries);
	atomic_store(&posted, 1);
	pthread_join(t, NULL);
	free(tries);
	return 0;
}
