/* A compare-and-swap lock (a correct program): each thread swaps the lock
 * word from 0 to 1, resetting its expected value after each failure, and
 * adds to a counter twice.
 *
 *   stdbg find examples/c/spin/cas-lock.c
 *
 * A failed compare-and-swap writes the value it found into expected, on
 * the thread's stack, and the loop puts 0 back: the thread is back in the
 * same state, having changed nothing, and waits for the store that frees
 * the lock (docs/spin.md). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int word;
static int counter;

static void *adder(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2; i++) {
		int expected = 0;
		while (!atomic_compare_exchange_weak(&word, &expected, 1))
			expected = 0;
		counter++;
		atomic_store(&word, 0);
	}
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, adder, NULL);
	pthread_create(&b, NULL, adder, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(counter == 4);
	return 0;
}
