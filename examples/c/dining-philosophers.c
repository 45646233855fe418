/* Dining philosophers: three philosophers around a table, one fork between
 * each pair. Everyone takes the left fork, then the right one, eats, and
 * puts both down.
 *
 * Bug: if every philosopher takes the left fork before anyone takes a
 * right one, each waits forever for a fork its neighbour holds. stdbg must
 * report the deadlock (three threads blocked in pthread_mutex_lock). The
 * fix is to take the forks in a global order (lower index first). Run
 * natively the program usually finishes, and hangs in the bad schedule. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define N 3

static pthread_mutex_t fork_lock[N] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                       PTHREAD_MUTEX_INITIALIZER};
static int meals[N];

static void *philosopher(void *arg)
{
	int i = (int)(intptr_t)arg;
	int left = i, right = (i + 1) % N;
	pthread_mutex_lock(&fork_lock[left]);
	pthread_mutex_lock(&fork_lock[right]);
	meals[i]++;
	pthread_mutex_unlock(&fork_lock[right]);
	pthread_mutex_unlock(&fork_lock[left]);
	return NULL;
}

int main(void)
{
	pthread_t t[N];
	for (intptr_t i = 0; i < N; i++)
		pthread_create(&t[i], NULL, philosopher, (void *)i);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	printf("meals: %d %d %d\n", meals[0], meals[1], meals[2]);
	return 0;
}
