/* Waiting for a worker with pthread_cond_timedwait: the timeout path.
 *
 * main waits for the worker's result with a generous deadline (5 s) and
 * treats a timeout as a fatal error. Natively the worker always answers
 * long before the deadline. But nothing in the program guarantees it:
 * stdbg controls time, and a timed wait may time out in any schedule in
 * which it has not been signalled. stdbg must explore the timeout and
 * report the failed stdbg_assert on it, which proves that timeouts are
 * explored. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <stdbg.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t answered = PTHREAD_COND_INITIALIZER;
static bool ready;
static int result;

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	result = 42;
	ready = true;
	pthread_cond_signal(&answered);
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	struct timespec deadline;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 5;
	pthread_mutex_lock(&lock);
	while (!ready) {
		int rc = pthread_cond_timedwait(&answered, &lock, &deadline);
		stdbg_assert(rc != ETIMEDOUT, "the worker did not answer in time");
	}
	int r = result;
	pthread_mutex_unlock(&lock);
	pthread_join(t, NULL);
	printf("result %d\n", r);
	return 0;
}
