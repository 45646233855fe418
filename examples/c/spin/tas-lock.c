/* A test-and-set lock (a correct program): two threads each add to a
 * counter twice, the counter under a lock taken by spinning on
 * __atomic_test_and_set, with nothing else in the wait loop.
 *
 *   stdbg find examples/c/spin/tas-lock.c
 *
 * Every failed test-and-set changes nothing: the thread is back where it
 * was, and waits for the store that clears the flag (docs/spin.md). The
 * search is exhaustive in a few dozen executions; without that, every
 * schedule in which a thread spins while the other holds the lock runs to
 * the depth bound. */
#include <assert.h>
#include <pthread.h>

static char busy;
static int counter;

static void *adder(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2; i++) {
		while (__atomic_test_and_set(&busy, __ATOMIC_ACQUIRE)) {
		}
		counter++;
		__atomic_clear(&busy, __ATOMIC_RELEASE);
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
