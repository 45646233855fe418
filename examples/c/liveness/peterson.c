/* Peterson's mutual exclusion for two threads, with a yield before each
 * access to the shared variables so that the checker interleaves them.
 *
 * Safety: at most one thread is in the critical section (stdbg_assert).
 * Liveness: a thread that wants to enter eventually enters,
 *   stdbg find --ltl 'G(want0 -> F enter0)' peterson.c
 * which holds under weak fairness (a waiting thread spins, so without
 * fairness the checker could starve the other one forever). Each thread
 * enters twice; --visited makes the spin loops end. */
#include <pthread.h>
#include <sched.h>
#include <stdbg.h>
#include <stdio.h>

static volatile int flag[2], turn;
static volatile int inside; /* threads in the critical section */
static volatile int want0, enter0, want1, enter1; /* propositions */

static void *proc(void *arg)
{
	int me = (int)(long)arg, other = 1 - me;
	volatile int *want = me ? &want1 : &want0, *enter = me ? &enter1 : &enter0;
	for (int round = 0; round < 2; round++) {
		*want = 1;
		sched_yield();
		flag[me] = 1;
		sched_yield();
		turn = other;
		sched_yield();
		while (flag[other] && turn == other)
			sched_yield();
		*want = 0;
		*enter = 1;
		inside++;
		sched_yield();
		stdbg_assert(inside == 1, "mutual exclusion");
		inside--;
		*enter = 0;
		sched_yield();
		flag[me] = 0;
	}
	return NULL;
}

int main(void)
{
	stdbg_prop("want0", &want0);
	stdbg_prop("enter0", &enter0);
	stdbg_prop("want1", &want1);
	stdbg_prop("enter1", &enter1);
	pthread_t a, b;
	pthread_create(&a, NULL, proc, (void *)0L);
	pthread_create(&b, NULL, proc, (void *)1L);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("done\n");
	return 0;
}
