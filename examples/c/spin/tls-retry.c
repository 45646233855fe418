/* A bounded retry that counts its tries in a thread-local variable: the
 * worker looks for the job three times, yielding between tries, then gives
 * up. The bug needs the worker to try five times before main posts it: more
 * turns than the checker needs to take a loop that changes nothing for one.
 *
 *   stdbg find examples/c/spin/tls-retry.c
 *
 * The count is not on the stack, and the loop's own frame is the same at
 * every turn (a helper counts): the library sees the store to thread-local
 * storage and tells the checker the iteration changed something
 * (docs/spin.md). */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

static atomic_int posted;
static __thread int tries;

static void count_try(void)
{
	tries++;
}

static void *worker(void *arg)
{
	(void)arg;
	while (!atomic_load(&posted)) {
		count_try();
		if (tries == 5)
			assert(!"the worker gave up before the job was posted");
		sched_yield();
	}
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	atomic_store(&posted, 1);
	pthread_join(t, NULL);
	return 0;
}
