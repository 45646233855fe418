/* prodcons(P, C): P producers and C consumers share a bounded buffer of 2
 * slots under one mutex and two condition variables (not full, not empty);
 * each producer puts 2 items, each consumer takes 2 (so P == C). The waits
 * are in while loops and the signals are broadcasts: correct.
 *
 *   stdbg find examples/c/dpor/prodcons.c -- 1 1
 *   stdbg find examples/c/dpor/prodcons.c -- 2 2
 *
 * With 2 producers and 2 consumers, exhausting the search with DPOR is the
 * target of the benchmarks (benchmarks/dpor_test.go). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbg.h>

#define SLOTS 2
#define ITEMS 2
#define MAXT 4

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t notfull = PTHREAD_COND_INITIALIZER;
static pthread_cond_t notempty = PTHREAD_COND_INITIALIZER;
static int buf[SLOTS];
static int count, in, out;
static int consumed;

static void *producer(void *arg)
{
	int id = (int)(long)arg;
	for (int i = 0; i < ITEMS; i++) {
		pthread_mutex_lock(&m);
		while (count == SLOTS)
			pthread_cond_wait(&notfull, &m);
		buf[in] = id * 100 + i;
		in = (in + 1) % SLOTS;
		count++;
		pthread_cond_broadcast(&notempty);
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITEMS; i++) {
		pthread_mutex_lock(&m);
		while (count == 0)
			pthread_cond_wait(&notempty, &m);
		int v = buf[out];
		(void)v;
		out = (out + 1) % SLOTS;
		count--;
		consumed++;
		pthread_cond_broadcast(&notfull);
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int p = 1, c = 1;
#ifdef PRODCONS_FIXED
	p = c = PRODCONS_FIXED;
#endif
	if (argc > 2) {
		p = atoi(argv[1]);
		c = atoi(argv[2]);
	}
	if (p < 1 || c < 1 || p > MAXT || c > MAXT || p != c) {
		fprintf(stderr, "usage: prodcons [P C], 1 <= P == C <= %d\n", MAXT);
		return 2;
	}
	pthread_t t[2 * MAXT];
	int k = 0;
	for (int i = 0; i < p; i++)
		pthread_create(&t[k++], NULL, producer, (void *)(long)(i + 1));
	for (int i = 0; i < c; i++)
		pthread_create(&t[k++], NULL, consumer, NULL);
	for (int i = 0; i < k; i++)
		pthread_join(t[i], NULL);
	stdbg_assert(consumed == p * ITEMS, "every item is consumed");
	return 0;
}
