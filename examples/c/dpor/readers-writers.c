/* readers-writers(N): N readers and one writer share a value under a
 * pthread rwlock; each reader checks that it never sees a half-done update
 * (the writer changes two fields, each write annotated). Readers commute
 * with each other on the value, but their rwlock operations do not with the
 * writer's.
 *
 *   stdbg find examples/c/dpor/readers-writers.c -- 3
 *
 * No bug: the rwlock keeps the readers out while the writer works. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbg.h>

#define MAXN 8

static int n = 2;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int lo, hi; /* the writer keeps lo == hi */

static void *reader(void *arg)
{
	(void)arg;
	pthread_rwlock_rdlock(&rw);
	stdbg_read(&lo, sizeof lo);
	int a = lo;
	stdbg_read(&hi, sizeof hi);
	int b = hi;
	pthread_rwlock_unlock(&rw);
	stdbg_assert(a == b, "a reader saw a half-done update");
	return NULL;
}

static void *writer(void *arg)
{
	(void)arg;
	pthread_rwlock_wrlock(&rw);
	stdbg_write(&lo, sizeof lo);
	lo++;
	stdbg_write(&hi, sizeof hi);
	hi++;
	pthread_rwlock_unlock(&rw);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		n = atoi(argv[1]);
	if (n < 1 || n > MAXN) {
		fprintf(stderr, "usage: readers-writers [N in 1..%d]\n", MAXN);
		return 2;
	}
	pthread_t w, r[MAXN];
	pthread_create(&w, NULL, writer, NULL);
	for (int i = 0; i < n; i++)
		pthread_create(&r[i], NULL, reader, NULL);
	pthread_join(w, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(r[i], NULL);
	return 0;
}
