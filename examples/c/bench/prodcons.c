/* Bounded buffer benchmark: P producers and C consumers (arguments, default
 * 1 and 1) share a buffer of 2 slots guarded by one mutex and two condition
 * variables. Every producer puts 2 items and every consumer takes 2 (so P
 * must equal C for everybody to finish). Waits are in `while' loops: the
 * program is correct, and an exhaustive search finds no bug; it measures
 * how fast the schedules are explored (benchmarks/). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbg.h>

#define SLOTS 2
#define ITEMS 2
#define MAXT 8

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static int buf[SLOTS];
static int count, in, out, total;

static void *producer(void *arg)
{
	int id = (int)(long)arg;
	for (int i = 0; i < ITEMS; i++) {
		pthread_mutex_lock(&lock);
		while (count == SLOTS)
			pthread_cond_wait(&not_full, &lock);
		buf[in] = id * 100 + i;
		in = (in + 1) % SLOTS;
		count++;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITEMS; i++) {
		pthread_mutex_lock(&lock);
		while (count == 0)
			pthread_cond_wait(&not_empty, &lock);
		stdbg_assert(count > 0, "take from an empty buffer");
		total += buf[out];
		out = (out + 1) % SLOTS;
		count--;
		pthread_cond_signal(&not_full);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int np = argc > 1 ? atoi(argv[1]) : 1;
	int nc = argc > 2 ? atoi(argv[2]) : 1;
	if (np < 1 || nc < 1 || np + nc > MAXT || np != nc) {
		fprintf(stderr, "usage: prodcons [P C], 1 <= P == C, P + C <= %d\n", MAXT);
		return 2;
	}
	pthread_t t[MAXT];
	for (long i = 0; i < np; i++)
		pthread_create(&t[i], NULL, producer, (void *)i);
	for (long i = 0; i < nc; i++)
		pthread_create(&t[np + i], NULL, consumer, (void *)i);
	for (int i = 0; i < np + nc; i++)
		pthread_join(t[i], NULL);
	printf("moved %d items, sum %d\n", np * ITEMS, total);
	return 0;
}
