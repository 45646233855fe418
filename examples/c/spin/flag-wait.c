/* A hand-over by an atomic flag (a correct program): the worker fills a
 * buffer and raises the flag; main spins on the flag, yielding, then reads
 * the buffer.
 *
 *   stdbg find examples/c/spin/flag-wait.c
 *
 * Each turn of main's loop loads the flag and yields, and comes back where
 * it started: main waits for the store to the flag (docs/spin.md). */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

static atomic_int ready;
static int buffer[4];

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 4; i++)
		buffer[i] = i * i;
	atomic_store(&ready, 1);
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	while (!atomic_load(&ready))
		sched_yield();
	assert(buffer[3] == 9);
	pthread_join(t, NULL);
	return 0;
}
