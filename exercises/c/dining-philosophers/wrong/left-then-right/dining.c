/* Dining philosophers: every philosopher takes the lower-numbered of its
 * two forks first, so no cycle of waiting philosophers can form. */
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
	pthread_mutex_lock(&forks[(i + 1) % N]);
	meal(i);
	pthread_mutex_unlock(&forks[(i + 1) % N]);
	pthread_mutex_unlock(&forks[i]);
}
