/* Priority inversion as a livelock.
 *
 * Three tasks on one simulated CPU: high > medium > low. low takes the
 * bus, and being of low priority it only goes on while medium is idle.
 * medium computes (a loop of work units) until high has been served. high
 * polls for the bus. Once low holds the bus and medium computes, nobody
 * progresses: medium waits for high, high for low, low for medium, and
 * every one of them keeps running (yielding) forever. stdbg find
 * --livelock reports that cycle as a lasso; stdbg_progress() marks high
 * being served. The property of the paper's example, G(r -> F cs), fails
 * the same way: --ltl 'G(r -> F cs)' with the propositions r (high asked
 * for the bus) and cs (high holds it).
 *
 * With priority inheritance (-DINHERIT) low runs at high's priority while
 * high waits, finishes with the bus, and both checks pass. */
#include <pthread.h>
#include <sched.h>
#include <stdbg.h>
#include <stdio.h>

static pthread_mutex_t bus = PTHREAD_MUTEX_INITIALIZER;
static volatile int medium_busy = 1; /* medium computes */
static volatile int served;         /* high got the bus */
static volatile int r, cs;          /* propositions: high requests, high holds the bus */

static void *high(void *arg)
{
	(void)arg;
	r = 1;
	while (pthread_mutex_trylock(&bus) != 0)
		sched_yield();
	cs = 1;
	r = 0;
	served = 1;
	stdbg_progress();
	pthread_mutex_unlock(&bus);
	cs = 0;
	return NULL;
}

static void *medium(void *arg)
{
	(void)arg;
	while (!served)
		sched_yield(); /* one unit of work */
	medium_busy = 0;
	return NULL;
}

static void *low(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&bus);
#ifdef INHERIT
	while (medium_busy && !r) /* inherits high's priority while high waits */
		sched_yield();
#else
	while (medium_busy) /* preempted by medium */
		sched_yield();
#endif
	pthread_mutex_unlock(&bus);
	return NULL;
}

int main(void)
{
	stdbg_prop("r", &r);
	stdbg_prop("cs", &cs);
	pthread_t h, m, l;
	pthread_create(&l, NULL, low, NULL);
	pthread_create(&m, NULL, medium, NULL);
	pthread_create(&h, NULL, high, NULL);
	pthread_join(h, NULL);
	pthread_join(m, NULL);
	pthread_join(l, NULL);
	printf("high was served\n");
	return 0;
}
