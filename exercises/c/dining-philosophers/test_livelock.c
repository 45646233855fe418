/* The grader's livelock test of dining.c: two philosophers dine again and
 * again for ever. Each meal is progress (stdbg_progress): the check looks
 * for a run, fair to both, that goes round and round without a meal. */
#include <pthread.h>
#include <stdbg.h>

#define N 2

static void meal(int i)
{
	(void)i;
	stdbg_progress();
}

#include "dining.c"

static void *philosopher(void *arg)
{
	for (;;)
		dine((int)(long)arg);
	return NULL;
}

int main(void)
{
	pthread_t t[N];
	table_init();
	for (long i = 0; i < N; i++)
		pthread_create(&t[i], NULL, philosopher, (void *)i);
	pthread_join(t[0], NULL); /* never returns: the philosophers dine for ever */
	return 0;
}
