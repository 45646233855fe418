/* The grader's test of barrier.c: three threads meet at one barrier twice.
 * When a thread leaves round r's barrier, every thread must have reached
 * it. */
#include <pthread.h>
#include <stdbg.h>
#include "polls.h" /* no busy-waiting: a thread takes the lock at most twice per round */
#include "barrier.c"

#define THREADS 3
#define ROUNDS 2

static struct barrier b;
static int reached[THREADS]; /* rounds each thread has reached */

static void *worker(void *arg)
{
	int me = (int)(long)arg;
	for (int r = 1; r <= ROUNDS; r++) {
		reached[me] = r;
		polls = 0;
		barrier_wait(&b);
		for (int j = 0; j < THREADS; j++)
			stdbg_assert(reached[j] >= r, "a thread left the barrier before every thread reached it");
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	barrier_init(&b, THREADS);
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return 0;
}
