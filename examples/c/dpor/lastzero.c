/* lastzero(N): thread 0 scans an array of N+1 zeros from the end and stops
 * at the first zero it sees; threads 1..N each set a[i] = a[i-1] + 1.
 * A classic benchmark of partial-order reduction: most pairs of accesses
 * are to different cells and commute, so the number of Mazurkiewicz traces
 * is far below the number of interleavings. The cells are accessed
 * atomically (the threads race on purpose).
 *
 *   stdbg find examples/c/dpor/lastzero.c -- 3
 *
 * No bug: the search ends with "No property violation found". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbg.h>

#define MAXN 16

static int n = 3;
static int a[MAXN + 1];

static void *scanner(void *arg)
{
	(void)arg;
	int i = n;
	for (;;) {
		stdbg_atomic_read(&a[i], sizeof a[i]);
		if (__atomic_load_n(&a[i], __ATOMIC_SEQ_CST) == 0 || i == 0)
			break;
		i--;
	}
	return NULL;
}

static void *setter(void *arg)
{
	int i = (int)(long)arg;
	stdbg_atomic_read(&a[i - 1], sizeof a[i - 1]);
	int v = __atomic_load_n(&a[i - 1], __ATOMIC_SEQ_CST);
	stdbg_atomic_write(&a[i], sizeof a[i]);
	__atomic_store_n(&a[i], v + 1, __ATOMIC_SEQ_CST);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		n = atoi(argv[1]);
	if (n < 1 || n > MAXN) {
		fprintf(stderr, "usage: lastzero [N in 1..%d]\n", MAXN);
		return 2;
	}
	pthread_t t[MAXN + 1];
	pthread_create(&t[0], NULL, scanner, NULL);
	for (int i = 1; i <= n; i++)
		pthread_create(&t[i], NULL, setter, (void *)(long)i);
	for (int i = 0; i <= n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
