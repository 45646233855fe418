/* Two threads backing off politely forever.
 *
 * Each thread wants a resource; it announces its wish, and if the other
 * wants it too it withdraws, waits a moment and tries again. Each step is a
 * scheduling point, so the checker may keep the two perfectly in step:
 * both announce, both see the other, both withdraw, again and again. Both
 * keep running and neither ever gets the resource: a livelock, which
 * stdbg find --livelock reports as a lasso (getting the resource is the
 * progress). Most schedules break the symmetry, so tests and runs rarely
 * show it. */
#include <pthread.h>
#include <sched.h>
#include <stdbg.h>
#include <stdio.h>

static volatile int want[2];
static int uses;

static void *polite(void *arg)
{
	int me = (int)(long)arg, other = 1 - me;
	for (;;) {
		want[me] = 1;
		sched_yield();
		if (!want[other])
			break;
		want[me] = 0; /* after you */
		sched_yield();
	}
	uses++; /* the resource */
	stdbg_progress();
	want[me] = 0;
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, polite, (void *)0L);
	pthread_create(&b, NULL, polite, (void *)1L);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("used %d times\n", uses);
	return 0;
}
