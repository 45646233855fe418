/* Lost update: two threads count hits in a shared variable without a lock.
 * Each increment is a read and a write (annotated: stdbg sees them), and
 * nothing orders one thread's pair against the other's.
 *
 *   stdbg find examples/c/lost-update.c                 the data race
 *   stdbg find --races=false examples/c/lost-update.c   the lost update
 *
 * With the race detector (the default), stdbg reports the two unordered
 * accesses to hits as a data race in the first schedule that runs both.
 * Without it, it finds the schedule where both threads read 0 and the
 * final check fails. A mutex around the increment fixes both. */
#include <pthread.h>
#include <stdio.h>
#include <stdbg.h>

static int hits;

static void *visitor(void *arg)
{
	(void)arg;
	stdbg_read(&hits, sizeof hits);
	int seen = hits;
	stdbg_write(&hits, sizeof hits);
	hits = seen + 1;
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, visitor, NULL);
	pthread_create(&b, NULL, visitor, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	stdbg_read(&hits, sizeof hits);
	stdbg_assert(hits == 2, "no hit is lost");
	printf("%d hits\n", hits);
	return 0;
}
