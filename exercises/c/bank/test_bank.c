/* The grader's test of bank.c: two accounts of 10; three transfers of 6
 * run at once (0 to 1 twice, 1 to 0 once) while the main thread adds up
 * the money. The total is always 20, and no account goes below zero. */
#include <pthread.h>
#include <stdbg.h>
#include "bank.c"

static struct bank b;

struct move {
	int from, to;
};

static void *mover(void *arg)
{
	struct move *m = arg;
	transfer(&b, m->from, m->to, 6);
	return NULL;
}

int main(void)
{
	static struct move moves[3] = {{0, 1}, {1, 0}, {0, 1}};
	pthread_t t[3];
	bank_init(&b, 10);
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, mover, &moves[i]);
	stdbg_assert(total(&b) == 20, "the auditor counted money that is on its way twice, or not at all");
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	stdbg_assert(b.acct[0].balance >= 0 && b.acct[1].balance >= 0, "an account went below zero");
	stdbg_assert(b.acct[0].balance + b.acct[1].balance == 20, "money was lost or made");
	return 0;
}
