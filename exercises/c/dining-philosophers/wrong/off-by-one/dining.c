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
	if (i == N) { /* the last philosopher is left-handed */
		int t = left;
		left = right;
		right = t;
	}
	pthread_mutex_lock(&forks[left]);
	pthread_mutex_lock(&forks[right]);
	meal(i);
	pthread_mutex_unlock(&forks[right]);
	pthread_mutex_unlock(&forks[left]);
}
