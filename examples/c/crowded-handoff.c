/* Crowded handoff: a writer publishes a stage under a mutex, then takes the
 * mutex again to check that no reader acted on it in between; a reader
 * acts on the stage if it sees it. A crowd of other threads (100 by
 * default, argument 1) take the same mutex once each.
 *
 *   stdbg find examples/c/crowded-handoff.c                    (the portfolio finds it)
 *   stdbg find --strategy dfs examples/c/crowded-handoff.c     (DPOR alone: not in a lifetime)
 *   stdbg find --delays 1 examples/c/crowded-handoff.c         (one delay)
 *
 * The bug needs the reader to run between the writer's two critical
 * sections. Depth first, DPOR reverses the races at the end of its first
 * execution first, and reaches the one near its start only after every
 * order of the crowd: (crowd+1)! executions. One deviation from a
 * round-robin scheduler, at the writer's second lock, shows it; so does
 * PCT, with a change point there. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXCROWD 250

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int stage, acted, count;

static void *writer(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&lock);
	stage = 1;
	pthread_mutex_unlock(&lock);
	pthread_mutex_lock(&lock);
	assert(!acted && "a reader acted between the writer's critical sections");
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *reader(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&lock);
	if (stage == 1)
		acted = 1;
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *bystander(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&lock);
	count++;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	if (n < 0 || n > MAXCROWD) {
		fprintf(stderr, "usage: crowded-handoff [0..%d]\n", MAXCROWD);
		return 2;
	}
	pthread_t w, r, crowd[MAXCROWD];
	pthread_create(&w, NULL, writer, NULL);
	pthread_create(&r, NULL, reader, NULL);
	for (int i = 0; i < n; i++)
		pthread_create(&crowd[i], NULL, bystander, NULL);
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(crowd[i], NULL);
	return 0;
}
