/* Recursive mutexes, statically and dynamically initialised (a correct
 * program).
 *
 * `smutex' is a PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP mutex, `dmutex' one made
 * recursive with pthread_mutexattr_settype. nested() takes a mutex twice
 * (lock, then trylock, which succeeds for the owner), keeps a depth count
 * and releases it twice with a yield in between: nobody else may get in
 * before the last unlock. The worker nests both mutexes, main nests `smutex'
 * at the same time. stdbg must find nothing (no self-deadlock, no lost
 * exclusion). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdbg.h>

static pthread_mutex_t smutex = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t dmutex;
static int depth[2]; /* holds of smutex (0) and dmutex (1) by their owner */

static void nested(pthread_mutex_t *m, int *d)
{
	pthread_mutex_lock(m);
	stdbg_assert(*d == 0, "nobody else holds the mutex");
	(*d)++;
	stdbg_assert(pthread_mutex_trylock(m) == 0, "the owner may lock a recursive mutex again");
	(*d)++;
	(*d)--;
	pthread_mutex_unlock(m);
	stdbg_yield(); /* still held once */
	(*d)--;
	pthread_mutex_unlock(m);
}

static void *worker(void *arg)
{
	(void)arg;
	nested(&smutex, &depth[0]);
	nested(&dmutex, &depth[1]);
	return NULL;
}

int main(void)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&dmutex, &a);
	pthread_mutexattr_destroy(&a);

	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	nested(&smutex, &depth[0]);
	pthread_join(t, NULL);
	pthread_mutex_destroy(&dmutex);
	printf("depths %d %d\n", depth[0], depth[1]);
	return 0;
}
