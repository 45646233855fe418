/* A wait for a flag nobody raises: the worker returns early on an error
 * path without raising go, and main spins on it for ever.
 *
 *   stdbg find examples/c/spin/spin-forever.c
 *
 * Main's loop changes nothing and nothing left can write go: the search
 * reports a livelock, naming main, where it spins and for a write to what
 * (docs/spin.md). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

static atomic_int go, failed;

static void *worker(void *arg)
{
	(void)arg;
	if (atomic_load(&failed))
		return NULL; /* forgets to raise go */
	atomic_store(&go, 1);
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	atomic_store(&failed, 1);
	while (!atomic_load(&go))
		sched_yield();
	pthread_join(t, NULL);
	return 0;
}
