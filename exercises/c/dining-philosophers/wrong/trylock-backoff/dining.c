/* Dining philosophers: a philosopher takes its left fork and tries its
 * right one; if that is busy, it puts the left one down and starts again,
 * so that it never holds a fork while it waits. */
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
	for (;;) {
		pthread_mutex_lock(&forks[left]);
		if (pthread_mutex_trylock(&forks[right]) == 0)
			break;
		pthread_mutex_unlock(&forks[left]); /* busy: back off */
	}
	meal(i);
	pthread_mutex_unlock(&forks[right]);
	pthread_mutex_unlock(&forks[left]);
}
