/* A bounded retry: the worker looks for the job main posts three times,
 * with a sched_yield between tries, then gives up. The bug needs the
 * worker to try three times before main takes the lock once: a thread that
 * is runnable but does not run for a while, which any real scheduler may
 * do (main preempted, or on a loaded machine).
 *
 *   stdbg find examples/c/retry-gives-up.c
 *
 * A fairness rule that holds a thread at its yield until the others had a
 * turn (as CHESS does) would never show it: main's first turn posts the job.
 * stdbg keeps every schedule of the yields. */
#include <assert.h>
#include <pthread.h>
#include <sched.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int posted;

static void *worker(void *arg)
{
	(void)arg;
	for (int try = 0; try < 3; try++) {
		pthread_mutex_lock(&m);
		int p = posted;
		pthread_mutex_unlock(&m);
		if (p)
			return NULL;
		sched_yield();
	}
	assert(!"the worker gave up before the job was posted");
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_mutex_lock(&m);
	posted = 1;
	pthread_mutex_unlock(&m);
	pthread_join(t, NULL);
	return 0;
}
