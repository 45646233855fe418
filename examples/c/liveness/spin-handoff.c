/* A correct handoff through a flag and a spin-wait with a yield.
 *
 * The producer writes the data, then raises the flag; the consumer spins
 * until it sees the flag. Without --visited the search follows the
 * consumer's loop until the depth bound; with --visited every turn of the
 * loop comes back to a state already explored, so the search ends, and
 * finds nothing wrong. With --livelock the spin is no livelock either: a
 * fair scheduler lets the producer run. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbg.h>
#include <stdio.h>

static int data;
static atomic_int ready;

static void *producer(void *arg)
{
	(void)arg;
	data = 42;
	sched_yield(); /* let the checker switch between the two writes */
	ready = 1;
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	while (!ready)
		sched_yield();
	stdbg_assert(data == 42, "the consumer sees the data written before the flag");
	stdbg_progress();
	return NULL;
}

int main(void)
{
	pthread_t p, c;
	pthread_create(&c, NULL, consumer, NULL);
	pthread_create(&p, NULL, producer, NULL);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	printf("handed over %d\n", data);
	return 0;
}
