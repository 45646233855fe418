/* spin-tas: a lock built from C11 atomics that tests, then sets, with
 * sched_yield in its wait loop. Both threads can see the flag clear before
 * either sets it, and both are inside. A kernel of issue 34: with memory
 * accesses as scheduling points (--memory), the loads of the wait loop
 * make DPOR's tree deep, and depth first it reaches the two threads' loads
 * side by side late.
 *
 *   stdbg find --memory benchmarks/evidence/kernels/spin-tas.c */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

static atomic_int flag, inside;

static void *worker(void *unused)
{
	(void)unused;
	for (int round = 0; round < 3; round++) {
		while (atomic_load(&flag))
			sched_yield();
		atomic_store(&flag, 1);
		int n = atomic_fetch_add(&inside, 1);
		assert(n == 0 && "two threads inside the lock");
		atomic_fetch_sub(&inside, 1);
		atomic_store(&flag, 0);
	}
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, worker, NULL);
	pthread_create(&b, NULL, worker, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
