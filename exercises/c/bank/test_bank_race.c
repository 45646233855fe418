/* The grader's race test of bank.c: a transfer from 0 to 1 and one from 1
 * to 0 while the main thread adds up the money. Built with the memory
 * instrumentation: every access to the balances is checked for data
 * races. */
#include <pthread.h>
#include <stdbg.h>
#include "bank.c"

static struct bank b;

static void *forth(void *arg)
{
	(void)arg;
	transfer(&b, 0, 1, 6);
	return NULL;
}

static void *back(void *arg)
{
	(void)arg;
	transfer(&b, 1, 0, 6);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	bank_init(&b, 10);
	pthread_create(&t[0], NULL, forth, NULL);
	pthread_create(&t[1], NULL, back, NULL);
	total(&b);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	return 0;
}
