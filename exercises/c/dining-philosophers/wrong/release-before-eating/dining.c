/* Dining philosophers: every philosopher takes the lower-numbered of its
 * two forks first, and puts both down before the meal, so that its
 * neighbours are not kept waiting while it eats. */
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
	pthread_mutex_unlock(&forks[second]);
	pthread_mutex_unlock(&forks[first]);
	meal(i); /* both forks were free: eat */
}
