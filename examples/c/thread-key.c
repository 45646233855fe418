/* A program that gives its threads pthread keys with destructors, which run
 * when a thread really ends: stdbg then lets its threads end for real
 * instead of keeping them parked between executions (ctarget
 * TestThreadKeysEndThreads). No bug. */
#include <pthread.h>
#include <stdlib.h>

static pthread_key_t key;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int done;

static void release(void *p) { free(p); }

static void *worker(void *arg)
{
	(void)arg;
	pthread_setspecific(key, malloc(16));
	pthread_mutex_lock(&m);
	done++;
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(void)
{
	pthread_key_create(&key, release);
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pthread_key_delete(key);
	return done == 2 ? 0 : 1;
}
