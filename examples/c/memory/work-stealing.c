/* A work-stealing deque (Chase-Lev) whose bottom index is a plain int: the
 * owner pushes and pops at the bottom, a thief steals at the top with a
 * compare-and-swap. The pop must publish its decrement of bottom before it
 * reads top (a sequentially consistent store, or a full fence); with a
 * plain bottom nothing orders the two, and the thief reads bottom while the
 * owner writes it.
 *
 *   stdbg find examples/c/memory/work-stealing.c
 *
 * stdbg reports the data race on bottom. (stdbg runs the program's
 * accesses one at a time, in program order: the reordering itself, which
 * lets owner and thief take the same last task on real hardware, is what
 * the race stands for.) Making bottom an atomic_long with sequentially
 * consistent accesses is the fix. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#define SIZE 8

static int tasks[SIZE];
static long bottom;     /* should be atomic_long */
static atomic_long top; /* stolen from here */
static int taken[3];    /* how often each task was taken */

static void push(int task)
{
	tasks[bottom % SIZE] = task;
	bottom = bottom + 1;
}

static int pop(void)
{
	long b = bottom - 1;
	bottom = b; /* needs a full fence before the load of top */
	long t = atomic_load(&top);
	if (t > b) {
		bottom = b + 1;
		return -1;
	}
	int task = tasks[b % SIZE];
	if (t == b) {
		if (!atomic_compare_exchange_strong(&top, &t, t + 1))
			task = -1;
		bottom = b + 1;
	}
	return task;
}

static int steal(void)
{
	long t = atomic_load(&top);
	long b = bottom;
	if (t >= b)
		return -1;
	int task = tasks[t % SIZE];
	if (!atomic_compare_exchange_strong(&top, &t, t + 1))
		return -1;
	return task;
}

static void *thief(void *arg)
{
	(void)arg;
	int task = steal();
	if (task >= 0)
		taken[task]++;
	return NULL;
}

int main(void)
{
	push(1);
	push(2);
	pthread_t t;
	pthread_create(&t, NULL, thief, NULL);
	int task;
	while ((task = pop()) >= 0)
		taken[task]++;
	pthread_join(t, NULL);
	assert(taken[1] <= 1 && taken[2] <= 1 && "no task is taken twice");
	return 0;
}
