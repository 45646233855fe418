/* Transfers between accounts: each account has its own lock; a transfer
 * holds both accounts' locks, taken in the order of the accounts' numbers
 * (so that two transfers in opposite directions cannot each hold one and
 * wait for the other), and checks the balance with them held. total holds
 * every lock, taken in the same order, while it adds up. */
#include <pthread.h>

#define ACCOUNTS 2

struct account {
	long balance;
	pthread_mutex_t lock;
};

struct bank {
	struct account acct[ACCOUNTS];
};

void bank_init(struct bank *b, long each)
{
	for (int i = 0; i < ACCOUNTS; i++) {
		b->acct[i].balance = each;
		pthread_mutex_init(&b->acct[i].lock, NULL);
	}
}

int transfer(struct bank *b, int from, int to, long amount)
{
	if (b->acct[from].balance < amount) /* not enough: no need to lock */
		return 0;
	int first = from < to ? from : to, second = from < to ? to : from;
	pthread_mutex_lock(&b->acct[first].lock);
	pthread_mutex_lock(&b->acct[second].lock);
	int done = 0;
	{
		b->acct[from].balance -= amount;
		b->acct[to].balance += amount;
		done = 1;
	}
	pthread_mutex_unlock(&b->acct[second].lock);
	pthread_mutex_unlock(&b->acct[first].lock);
	return done;
}

long total(struct bank *b)
{
	long sum = 0;
	for (int i = 0; i < ACCOUNTS; i++)
		pthread_mutex_lock(&b->acct[i].lock);
	for (int i = 0; i < ACCOUNTS; i++)
		sum += b->acct[i].balance;
	for (int i = ACCOUNTS - 1; i >= 0; i--)
		pthread_mutex_unlock(&b->acct[i].lock);
	return sum;
}
