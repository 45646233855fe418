/* N philosophers sit round a table with one fork between each two.
 * Philosopher i needs fork i (on the left) and fork (i + 1) % N (on the
 * right) to eat: write dine(i), which takes both forks, calls meal(i) and
 * puts them down, so that the philosophers can never deadlock.
 * N and meal() are defined by the program that includes this file. */
#include <pthread.h>

static pthread_mutex_t forks[N];

void table_init(void)
{
	for (int i = 0; i < N; i++)
		pthread_mutex_init(&forks[i], NULL);
}

void dine(int i)
{
	/* take the forks */
	meal(i);
	/* put them down */
}
