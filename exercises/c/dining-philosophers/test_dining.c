/* The grader's test of dining.c: three philosophers eat once each. A
 * philosopher eats in meal, and the others may run while it eats: no
 * neighbour may be eating then. */
#include <pthread.h>
#include <stdbg.h>

#define N 3

static int eating[N];

/* meal is called by dine(i) with both of i's forks held. */
static void meal(int i)
{
	eating[i] = 1;
	stdbg_yield(); /* the others may run while philosopher i eats */
	stdbg_assert(!eating[(i + 1) % N] && !eating[(i + N - 1) % N], "two neighbours eat at once");
	eating[i] = 0;
}

#define MAX_POLLS 2 /* a philosopher takes two forks, once each */
#include "polls.h"
#include "dining.c"

static void *philosopher(void *arg)
{
	polls = 0;
	dine((int)(long)arg);
	return NULL;
}

int main(void)
{
	pthread_t t[N];
	table_init();
	for (long i = 0; i < N; i++)
		pthread_create(&t[i], NULL, philosopher, (void *)i);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	return 0;
}
