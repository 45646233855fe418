/* Unlocking a mutex held by another thread.
 *
 * main takes the configuration lock and starts a worker to finish the
 * update; the worker "hands the lock back" by unlocking it, but a mutex
 * belongs to the thread that locked it: pthread_mutex_unlock from another
 * thread is undefined behaviour (glibc silently allows it for normal
 * mutexes). stdbg must report a misuse at the worker's
 * pthread_mutex_unlock, in every schedule. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static int config;

static void *finisher(void *arg)
{
	(void)arg;
	config++;
	pthread_mutex_unlock(&config_lock); /* BUG: main holds it */
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_mutex_lock(&config_lock);
	config = 1;
	pthread_create(&t, NULL, finisher, NULL);
	pthread_join(t, NULL);
	printf("config %d\n", config);
	return 0;
}
