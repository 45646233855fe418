/* Dining philosophers benchmark: N philosophers (argument, 3 to 8, default
 * 3) around a table, one fork between each pair; each eats once, taking
 * the lower-numbered of its two forks first. That global order makes the
 * program deadlock-free (compare ../dining-philosophers.c, where everyone
 * takes the left fork first): an exhaustive search finds no bug, and the
 * number of schedules grows fast with N (benchmarks/). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXN 8

static pthread_mutex_t fork_lock[MAXN];
static int meals[MAXN];
static int n;

static void *philosopher(void *arg)
{
	int i = (int)(intptr_t)arg;
	int left = i, right = (i + 1) % n;
	int lo = left < right ? left : right, hi = left < right ? right : left;
	pthread_mutex_lock(&fork_lock[lo]);
	pthread_mutex_lock(&fork_lock[hi]);
	meals[i]++;
	pthread_mutex_unlock(&fork_lock[hi]);
	pthread_mutex_unlock(&fork_lock[lo]);
	return NULL;
}

int main(int argc, char **argv)
{
	n = argc > 1 ? atoi(argv[1]) : 3;
	if (n < 3 || n > MAXN) {
		fprintf(stderr, "usage: philosophers [N], 3 <= N <= %d\n", MAXN);
		return 2;
	}
	for (int i = 0; i < n; i++)
		pthread_mutex_init(&fork_lock[i], NULL);
	pthread_t t[MAXN];
	for (intptr_t i = 0; i < n; i++)
		pthread_create(&t[i], NULL, philosopher, (void *)i);
	int total = 0;
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		total += meals[i];
	}
	printf("%d meals\n", total);
	return 0;
}
