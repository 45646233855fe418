/* A counter protected by a pthread spin lock (a correct program).
 *
 * Two threads add to a counter; the read and the write are split by a
 * yield, so only the lock keeps increments from being lost. The first
 * increment takes the lock with pthread_spin_trylock when it can and
 * falls back to pthread_spin_lock. stdbg must find nothing. */
#include <pthread.h>
#include <stdio.h>
#include <stdbg.h>

#define ROUNDS 2

static pthread_spinlock_t spin;
static int counter;

static void *adder(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		if (i > 0 || pthread_spin_trylock(&spin) != 0)
			pthread_spin_lock(&spin);
		int v = counter;
		stdbg_yield();
		counter = v + 1;
		pthread_spin_unlock(&spin);
	}
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
	pthread_create(&t, NULL, adder, NULL);
	adder(NULL);
	pthread_join(t, NULL);
	stdbg_assert(counter == 2 * ROUNDS, "no increment is lost");
	pthread_spin_destroy(&spin);
	printf("counter = %d\n", counter);
	return 0;
}
