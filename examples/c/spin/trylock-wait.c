/* A wait by trylock (a correct program): the worker holds the mutex while
 * it prepares a value; main tries the mutex until it gets it, yielding
 * between tries, and finds the value ready.
 *
 *   stdbg find examples/c/spin/trylock-wait.c
 *
 * A failed trylock changes nothing: main waits for the unlock. */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static atomic_int held;
static int value;

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	atomic_store(&held, 1);
	value = 7;
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	while (!atomic_load(&held))
		sched_yield();
	while (pthread_mutex_trylock(&m) != 0)
		sched_yield();
	assert(value == 7);
	pthread_mutex_unlock(&m);
	pthread_join(t, NULL);
	return 0;
}
