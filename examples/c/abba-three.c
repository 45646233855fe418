/* ABBA with three threads: two clerks move money from account A to
 * account B, locking A then B; an auditor locks B then A. Each does it
 * twice. Most runs finish; when the auditor holds B while a clerk holds A,
 * both wait forever, and the other clerk waits for A behind them.
 *
 * The first deadlock a depth-first search meets is long (the threads go
 * round their loops first); stdbg minimises it to the shortest schedule
 * with the fewest preemptions and proves it minimal. The fix: every thread
 * takes the locks in one order. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static int balance_a = 100, balance_b;

static void *clerk(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2; i++) {
		pthread_mutex_lock(&a);
		pthread_mutex_lock(&b);
		balance_a -= 10;
		balance_b += 10;
		pthread_mutex_unlock(&b);
		pthread_mutex_unlock(&a);
	}
	return NULL;
}

static void *auditor(void *arg)
{
	(void)arg;
	int seen = 0;
	for (int i = 0; i < 2; i++) {
		pthread_mutex_lock(&b);
		pthread_mutex_lock(&a);
		seen = balance_a + balance_b;
		pthread_mutex_unlock(&a);
		pthread_mutex_unlock(&b);
	}
	return (void *)(long)seen;
}

int main(void)
{
	pthread_t t[3];
	pthread_create(&t[0], NULL, clerk, NULL);
	pthread_create(&t[1], NULL, clerk, NULL);
	pthread_create(&t[2], NULL, auditor, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("A = %d, B = %d\n", balance_a, balance_b);
	return 0;
}
