/* Lost update, without annotations: two threads add to a global counter
 * with x++ and no lock.
 *
 *   stdbg find examples/c/memory/lost-update.c
 *   stdbg find --races=false examples/c/memory/lost-update.c
 *
 * Built with --memory, every load and store of the counter is a scheduling
 * point: stdbg reports the data race, or without the race detector the
 * schedule in which an increment is lost. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static int visits;

static void *visit(void *arg)
{
	(void)arg;
	visits++;
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, visit, NULL);
	pthread_create(&b, NULL, visit, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(visits == 2);
	printf("%d visits\n", visits);
	return 0;
}
