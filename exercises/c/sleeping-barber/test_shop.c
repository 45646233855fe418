/* The grader's test of shop.c: a barber and two customers; when both have
 * left, the shop closes. Every customer told he had his turn (visit
 * returned 1) must have been called by the barber, and the barber must
 * call nobody else. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbg.h>
#include "polls.h" /* no busy-waiting: a thread takes the lock at most twice per call */
#include "shop.c"

static struct shop s;
static atomic_int turns, calls;

static void *barber(void *arg)
{
	(void)arg;
	for (;;) {
		polls = 0;
		if (!barber_next(&s))
			break;
		stdbg_assert(s.waiting < CHAIRS + 1, "more customers sat down than there are chairs");
		atomic_fetch_add(&calls, 1);
	}
	return NULL;
}

static void *customer(void *arg)
{
	(void)arg;
	polls = 0;
	if (visit(&s))
		atomic_fetch_add(&turns, 1);
	return NULL;
}

int main(void)
{
	pthread_t b, c[2];
	shop_init(&s);
	pthread_create(&b, NULL, barber, NULL);
	for (int i = 0; i < 2; i++)
		pthread_create(&c[i], NULL, customer, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(c[i], NULL);
	polls = 0;
	shop_close(&s);
	pthread_join(b, NULL);
	stdbg_assert(turns == calls, "the barber called a different number of customers than had their turn");
	stdbg_assert(turns >= 1, "the first customer found the waiting room full");
	return 0;
}
