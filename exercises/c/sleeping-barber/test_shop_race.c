/* The grader's race test of shop.c: two customers come in while the main
 * thread, as the barber, calls whoever waits. Built with the memory
 * instrumentation: every access to the shop's fields is checked for data
 * races. (A customer who comes in after the barber went home waits for
 * ever: that is not this test's business.) */
#include <pthread.h>
#include <stdbg.h>
#include "polls.h" /* a busy-wait ends the run at once, not at the depth bound */
#include "shop.c"

static struct shop s;

static void *customer(void *arg)
{
	(void)arg;
	polls = 0;
	visit(&s);
	return NULL;
}

int main(void)
{
	pthread_t c[2];
	shop_init(&s);
	for (int i = 0; i < 2; i++)
		pthread_create(&c[i], NULL, customer, NULL);
	polls = 0;
	shop_close(&s);
	do
		polls = 0;
	while (barber_next(&s));
	return 0;
}
