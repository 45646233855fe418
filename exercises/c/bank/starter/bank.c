/* Money moves between accounts while an auditor adds it up. transfer moves
 * amount from account from to account to if from holds at least amount
 * (and returns 1), else moves nothing (and returns 0); no account may ever
 * go below zero. total returns the sum of all balances as it is at one
 * moment: money on its way from one account to another is never missed or
 * counted twice. Give each account a lock of its own (one lock for the
 * whole bank would make every transfer wait for every other). */
#include <pthread.h>

#define ACCOUNTS 2

struct account {
	long balance;
	/* add what you need */
};

struct bank {
	struct account acct[ACCOUNTS];
};

void bank_init(struct bank *b, long each)
{
	for (int i = 0; i < ACCOUNTS; i++)
		b->acct[i].balance = each;
}

int transfer(struct bank *b, int from, int to, long amount)
{
	if (b->acct[from].balance < amount)
		return 0;
	b->acct[from].balance -= amount;
	b->acct[to].balance += amount;
	return 1;
}

long total(struct bank *b)
{
	long sum = 0;
	for (int i = 0; i < ACCOUNTS; i++)
		sum += b->acct[i].balance;
	return sum;
}
