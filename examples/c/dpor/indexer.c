/* indexer(N): N threads insert 4 values each into a shared hash table with
 * open addressing, claiming a cell with an atomic compare-and-swap
 * (annotated as an atomic write). Threads only conflict when their values hash to
 * the same cells, which starts at N = 12: below, every interleaving is the
 * same Mazurkiewicz trace. After Flanagan and Godefroid's benchmark.
 *
 *   stdbg find examples/c/dpor/indexer.c -- 12
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbg.h>

#define SIZE 128
#define MAX 4
#define MAXN 16

static int n = 2;
static int table[SIZE];

/* cas claims table[h] if it is free: one visible atomic operation. */
static int cas(int h, int w)
{
	int free = 0;
	stdbg_atomic_write(&table[h], sizeof table[h]);
	return __atomic_compare_exchange_n(&table[h], &free, w, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static void *indexer(void *arg)
{
	int tid = (int)(long)arg;
	for (int m = 0; m < MAX; m++) {
		int w = m * 11 + tid;
		int h = (w * 7) % SIZE;
		while (!cas(h, w))
			h = (h + 1) % SIZE;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		n = atoi(argv[1]);
	if (n < 1 || n > MAXN) {
		fprintf(stderr, "usage: indexer [N in 1..%d]\n", MAXN);
		return 2;
	}
	pthread_t t[MAXN];
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, indexer, (void *)(long)(i + 1));
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
