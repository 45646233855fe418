/* A reusable barrier for n threads: barrier_wait returns only once all n
 * threads have called it, and the same barrier then serves the next round.
 * Use one mutex and a condition variable; no busy waiting and no
 * pthread_barrier_t. */
#include <pthread.h>

struct barrier {
	int n;       /* threads that meet at the barrier */
	int arrived; /* threads that have arrived in this round */
	/* add what you need */
};

void barrier_init(struct barrier *b, int n)
{
	b->n = n;
	b->arrived = 0;
}

void barrier_wait(struct barrier *b)
{
	/* count this thread in; the last to arrive lets everyone go and
	 * prepares the next round; the others wait for it */
}
