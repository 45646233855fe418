/* Dining philosophers: a philosopher takes only the fork on its left, so
 * no philosopher ever waits for a second fork and no cycle can form. */
#include <pthread.h>

static pthread_mutex_t forks[N];

void table_init(void)
{
	for (int i = 0; i < N; i++)
		pthread_mutex_init(&forks[i], NULL);
}

void dine(int i)
{
	pthread_mutex_lock(&forks[i]);
	meal(i);
	pthread_mutex_unlock(&forks[i]);
}
