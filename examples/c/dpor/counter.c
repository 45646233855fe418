/* counter(N): N threads each add one to a shared counter under a mutex
 * (the read and the write annotated); main checks the total. There are N!
 * Mazurkiewicz traces, one per order of the critical sections.
 *
 *   stdbg find examples/c/dpor/counter.c -- 4
 *
 * No bug. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbg.h>

#define MAXN 8

static int n = 3;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	stdbg_read(&counter, sizeof counter);
	int v = counter;
	stdbg_write(&counter, sizeof counter);
	counter = v + 1;
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		n = atoi(argv[1]);
	if (n < 1 || n > MAXN) {
		fprintf(stderr, "usage: counter [N in 1..%d]\n", MAXN);
		return 2;
	}
	pthread_t t[MAXN];
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	stdbg_read(&counter, sizeof counter);
	stdbg_assert(counter == n, "every increment is counted");
	return 0;
}
