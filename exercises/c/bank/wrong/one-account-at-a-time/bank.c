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
	/* one lock at a time: no transfer can wait for another */
	pthread_mutex_lock(&b->acct[from].lock);
	if (b->acct[from].balance < amount) {
		pthread_mutex_unlock(&b->acct[from].lock);
		return 0;
	}
	b->acct[from].balance -= amount;
	pthread_mutex_unlock(&b->acct[from].lock);
	pthread_mutex_lock(&b->acct[to].lock);
	b->acct[to].balance += amount;
	pthread_mutex_unlock(&b->acct[to].lock);
	return 1;
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
