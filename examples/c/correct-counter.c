/* Correct counter: several threads add to a shared counter, each increment
 * done under one mutex, and main checks the total after joining them all.
 *
 * There is no bug: stdbg must explore every interleaving (the read and the
 * write of the counter are split by a yield, so a missing lock would show)
 * and report nothing. */
#include <pthread.h>
#include <stdio.h>
#include <stdbg.h>

#define THREADS 2
#define ROUNDS 2

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&lock);
		int v = counter;
		stdbg_yield(); /* another thread may run here, but not in here */
		counter = v + 1;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	stdbg_assert(counter == THREADS * ROUNDS, "every increment is counted");
	printf("counter = %d\n", counter);
	return 0;
}
