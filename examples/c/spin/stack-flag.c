/* A flag on main's stack (a correct program): main hands the worker the
 * address of a local flag and spins on it, yielding; the worker raises it.
 *
 *   stdbg find examples/c/spin/stack-flag.c
 *
 * The flag is not memory the checker follows (a stack), so main's loop is
 * no iteration it can prove changes nothing on its own: the worker's store
 * into main's stack is seen by the library, which tells the checker that
 * main's state changed (docs/spin.md). The search must end without a
 * report. */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

static void *worker(void *arg)
{
	atomic_int *flag = arg;
	atomic_store(flag, 1);
	return NULL;
}

int main(void)
{
	atomic_int flag = 0;
	pthread_t t;
	pthread_create(&t, NULL, worker, &flag);
	while (!atomic_load(&flag))
		sched_yield();
	pthread_join(t, NULL);
	return 0;
}
