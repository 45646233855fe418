/* The grader's test of semaphore.c: a semaphore of value 1 lets one of
 * three threads at a time into a critical section; each thread passes
 * once. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbg.h>
#include "polls.h" /* no busy-waiting: a thread takes the lock at most twice per call */
#include "semaphore.c"

static struct semaphore sem;
static atomic_int inside, passed;

static void *worker(void *arg)
{
	(void)arg;
	polls = 0;
	semaphore_down(&sem);
	int n = atomic_fetch_add(&inside, 1) + 1;
	stdbg_yield(); /* another thread may run here */
	stdbg_assert(n <= 1 && inside <= 1, "two threads hold a semaphore of value 1");
	atomic_fetch_sub(&inside, 1);
	atomic_fetch_add(&passed, 1);
	polls = 0;
	semaphore_up(&sem);
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	semaphore_init(&sem, 1);
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	stdbg_assert(passed == 3 && sem.value == 1, "the semaphore lost or gained a unit");
	return 0;
}
