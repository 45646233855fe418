/* start-order: main starts a worker that marks itself started, then reads
 * the mark right after pthread_create and relies on it later. Nothing
 * orders the worker's first statement before main's read: in a real run
 * main often gets there first. The worker's start is a scheduling point of
 * its own, so the search runs main on first, as the OS may. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static int started; /* set by the worker as its first statement */

static void *worker(void *unused)
{
	(void)unused;
	started = 1;
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	int seen = started; /* the bug: the worker may not have run yet */
	pthread_join(t, NULL);
	assert(seen == 1 && "main read the mark before the worker set it");
	printf("the worker had started\n");
	return 0;
}
