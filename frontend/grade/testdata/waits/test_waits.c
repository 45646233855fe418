/* Two threads that each wait a little, in the kernel (not through the C
 * library, which stdbg sees), between their operations: a check of it
 * takes seconds of wall time and next to no CPU time. */
#include <pthread.h>
#include <stdbg.h>
#include "waits.c"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2; i++) {
		pthread_mutex_lock(&m);
		pthread_mutex_unlock(&m);
		pause_a_little();
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
