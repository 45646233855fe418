/* The grader's test of counter.c: two threads add to the counter while
 * the main thread reads it; at the end it must hold every addition. */
#include <pthread.h>
#include <stdbg.h>
#include "counter.c"

static struct counter c;

static void *adder(void *arg)
{
	long n = (long)arg;
	counter_add(&c, n);
	counter_add(&c, 0);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	counter_init(&c);
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, adder, (void *)(i + 1));
	long seen = counter_get(&c);
	stdbg_assert(seen >= 0 && seen <= 3, "the counter shows a value never added");
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	stdbg_assert(counter_get(&c) == 3, "the counter lost an addition");
	return 0;
}
