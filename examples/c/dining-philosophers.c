/* Dining philosophers: N philosophers around a table (argument, 2 to 8,
 * default 3), one fork between each pair. Everyone takes the left fork,
 * then the right one, eats, and puts both down.
 *
 * Bug: if every philosopher takes the left fork before anyone takes a
 * right one, each waits forever for a fork its neighbour holds. stdbg must
 * report the deadlock (the N philosophers blocked in pthread_mutex_lock,
 * main in pthread_join). The fix is to take the forks in a global order
 * (lower index first: bench/philosophers.c). Run natively the program
 * usually finishes, and hangs in the bad schedule. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXN 8

static pthread_mutex_t fork_lock[MAXN] = {
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
};
static int meals[MAXN];
static int n = 3;

static void *philosopher(void *arg)
{
	int i = (int)(intptr_t)arg;
	int left = i, right = (i + 1) % n;
	pthread_mutex_lock(&fork_lock[left]);
	pthread_mutex_lock(&fork_lock[right]);
	meals[i]++;
	pthread_mutex_unlock(&fork_lock[right]);
	pthread_mutex_unlock(&fork_lock[left]);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		n = atoi(argv[1]);
	if (n < 2 || n > MAXN) {
		fprintf(stderr, "usage: dining-philosophers [N], 2 <= N <= %d\n", MAXN);
		return 2;
	}
	pthread_t t[MAXN];
	for (intptr_t i = 0; i < n; i++)
		pthread_create(&t[i], NULL, philosopher, (void *)i);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("meals:");
	for (int i = 0; i < n; i++)
		printf(" %d", meals[i]);
	printf("\n");
	return 0;
}
