/* A test-and-set lock around half of an increment: each of two threads
 * reads the counter in one critical section and writes it back in
 * another, so an increment of the other thread in between is lost.
 *
 *   stdbg find examples/c/spin/tas-lost-update.c
 *
 * The wait loops change nothing and so wait for the store that clears the
 * flag (docs/spin.md): the lost update is found, and its schedule proven
 * minimal, in about a hundred executions. */
#include <assert.h>
#include <pthread.h>

static char busy;
static int counter;

static void lock(void)
{
	while (__atomic_test_and_set(&busy, __ATOMIC_ACQUIRE)) {
	}
}

static void unlock(void)
{
	__atomic_clear(&busy, __ATOMIC_RELEASE);
}

static void *adder(void *arg)
{
	(void)arg;
	lock();
	int v = counter;
	unlock();
	lock();
	counter = v + 1;
	unlock();
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, adder, NULL);
	pthread_create(&b, NULL, adder, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(counter == 2 && "an increment was lost");
	return 0;
}
