/* The grader's test of semaphore.c: a semaphore of value 1 lets one of
 * three threads at a time into a critical section; each thread passes
 * once. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbg.h>
#include "polls.h" /* no busy-waiting: a thread takes the lock at most twice per call */
#include "semaphore.c"

static struct semaphore sem;
static atomic_int passed;

/* held is the harness's own mark of a thread between semaphore_down and
 * semaphore_up: a mutex, so that the checker sees who marks and unmarks it
 * and explores every order of those marks with the semaphore's own
 * operations. (A counter in a plain atomic variable, which the checker of
 * this test does not see, let the search and the minimisation take a
 * thread's leaving for independent of another's entering, which the
 * assertion tells apart.) The parentheses call the functions themselves,
 * not polls.h's counting macros: these calls are the harness's. */
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	(void)arg;
	polls = 0;
	semaphore_down(&sem);
	stdbg_assert((pthread_mutex_trylock)(&held) == 0, "two threads hold a semaphore of value 1");
	atomic_fetch_add(&passed, 1);
	(pthread_mutex_unlock)(&held);
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
