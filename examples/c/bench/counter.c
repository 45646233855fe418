/* Counter benchmark: T threads (first argument, 1 to 8, default 3) each
 * take one mutex K times (second argument, 1 to 8, default 3) to add one
 * to a shared counter; main checks the total. The Mazurkiewicz traces are
 * the orders of the critical sections: (T*K)! / (K!)^T of them, 1,680 for
 * 3 x 3 and 2,520 for 4 x 2. No bug: an exhaustive search with DPOR runs
 * one execution per trace (benchmarks/, BenchmarkThroughput). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX 8

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int counter, rounds = 3;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < rounds; i++) {
		pthread_mutex_lock(&m);
		counter++;
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 3;
	if (argc > 2)
		rounds = atoi(argv[2]);
	if (threads < 1 || threads > MAX || rounds < 1 || rounds > MAX) {
		fprintf(stderr, "usage: counter [THREADS [ROUNDS]], each in 1..%d\n", MAX);
		return 2;
	}
	pthread_t t[MAX];
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	if (counter != threads * rounds) {
		fprintf(stderr, "lost updates: %d\n", counter);
		return 1;
	}
	return 0;
}
