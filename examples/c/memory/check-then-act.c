/* Check-then-act: two clients reserve seats from a shared pool; each
 * checks that a seat is left, then takes it, with no lock around the two.
 *
 *   stdbg find examples/c/memory/check-then-act.c
 *   stdbg find --races=false examples/c/memory/check-then-act.c
 *
 * Both can see the last seat free and both take it: the pool goes
 * negative. */
#include <assert.h>
#include <pthread.h>

static int seats = 1;

static void *reserve(void *arg)
{
	(void)arg;
	if (seats > 0)
		seats = seats - 1;
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, reserve, NULL);
	pthread_create(&b, NULL, reserve, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(seats >= 0 && "no seat is sold twice");
	return 0;
}
