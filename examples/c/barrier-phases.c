/* Three threads work in two phases separated by a pthread barrier (a
 * correct program).
 *
 * In each phase every thread checks in, then waits at the barrier; after
 * it, every thread must see all three check-ins of the phase, and exactly
 * one thread per phase gets PTHREAD_BARRIER_SERIAL_THREAD from
 * pthread_barrier_wait (main checks the count per phase). stdbg must find
 * nothing. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdbg.h>

#define THREADS 3
#define PHASES 2

static pthread_barrier_t barrier;
static atomic_int arrived[PHASES]; /* check-ins per phase */
static atomic_int serial[PHASES];  /* serial threads per phase */

static void *worker(void *arg)
{
	(void)arg;
	for (int p = 0; p < PHASES; p++) {
		arrived[p]++;
		int rc = pthread_barrier_wait(&barrier);
		stdbg_assert(rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD, "pthread_barrier_wait succeeds");
		stdbg_assert(arrived[p] == THREADS, "nobody leaves the barrier before all arrived");
		if (rc == PTHREAD_BARRIER_SERIAL_THREAD)
			serial[p]++;
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS - 1];
	pthread_barrier_init(&barrier, NULL, THREADS);
	for (int i = 0; i < THREADS - 1; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	worker(NULL); /* main is the third thread */
	for (int i = 0; i < THREADS - 1; i++)
		pthread_join(t[i], NULL);
	for (int p = 0; p < PHASES; p++)
		stdbg_assert(serial[p] == 1, "exactly one serial thread per phase");
	pthread_barrier_destroy(&barrier);
	printf("%d phases\n", PHASES);
	return 0;
}
