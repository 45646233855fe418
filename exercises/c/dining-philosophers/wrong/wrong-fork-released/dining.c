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
	int left = i, right = (i + 1) % N;
	int first = left < right ? left : right;
	int second = left < right ? right : left;
	pthread_mutex_lock(&forks[first]);
	pthread_mutex_lock(&forks[second]);
	meal(i);
	pthread_mutex_unlock(&forks[first]);
	pthread_mutex_unlock(&forks[first]);
}
