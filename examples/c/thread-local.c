/* Thread-local storage starts afresh in every execution: each worker finds
 * its __thread counter and buffer at their initial values, whatever an
 * earlier execution left in them, then changes both. No bug: a search runs
 * every schedule without a failed assertion and without stdbg finding the
 * program behaving differently under the same schedule (stdbg keeps the
 * threads of a reused process parked between executions and puts their
 * thread-local storage back: ctarget TestThreadLocalFresh).
 *
 *   stdbg find examples/c/thread-local.c */
#include <assert.h>
#include <errno.h>
#include <pthread.h>

static __thread int calls = 7;
static __thread char scratch[64];
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int total;

static void *worker(void *arg)
{
	(void)arg;
	assert(calls == 7 && scratch[0] == 0);
	calls += 5;
	scratch[0] = 'x';
	errno = EAGAIN;
	pthread_mutex_lock(&m);
	total += calls;
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	assert(total == 36);
	return 0;
}
