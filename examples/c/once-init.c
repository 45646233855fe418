/* Lazy initialisation with pthread_once from several threads (a correct
 * program).
 *
 * Three threads need a table that is built on first use. pthread_once runs
 * the builder exactly once; the builder yields half-way, so stdbg can let
 * other threads call pthread_once while it runs: they must wait until it is
 * done, and then see the whole table. stdbg must find nothing. */
#include <pthread.h>
#include <stdio.h>
#include <stdbg.h>

#define THREADS 3

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int table[2];
static int builds;

static void build(void)
{
	builds++;
	table[0] = 1;
	stdbg_yield(); /* half built */
	table[1] = 2;
}

static void *user(void *arg)
{
	(void)arg;
	pthread_once(&once, build);
	stdbg_assert(table[0] == 1 && table[1] == 2, "the table is complete after pthread_once");
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS - 1];
	for (int i = 0; i < THREADS - 1; i++)
		pthread_create(&t[i], NULL, user, NULL);
	user(NULL);
	for (int i = 0; i < THREADS - 1; i++)
		pthread_join(t[i], NULL);
	stdbg_assert(builds == 1, "the table is built once");
	printf("built %d time(s)\n", builds);
	return 0;
}
