/* Priority inversion (the Mars Pathfinder bug, in miniature).
 *
 * Three tasks share one CPU under fixed priorities high > medium > low.
 * high and low share the bus, protected by bus_lock; medium never touches
 * the bus. stdbg, not the OS, schedules the threads, so the program plays
 * the CPU itself with a second mutex: medium holds cpu_lock while it
 * computes, and low needs cpu_lock to make progress (medium preempts low).
 * high needs no CPU token: nothing preempts it.
 *
 * Bug: medium computes, low takes the bus and cannot finish its bus
 * transaction (the CPU is medium's), and high, which asked for the bus,
 * waits for low: the highest priority task is held up by medium, a task of
 * lower priority that does not even use the bus. With priority inheritance
 * low would run at high's priority and preempt medium.
 *
 * Safety check (a monitor in medium): medium never computes while high
 * waits for the bus held by low. stdbg must report the failed stdbg_assert
 * in medium, with a schedule like: medium takes the CPU, low takes the bus
 * and blocks on the CPU, medium computes. The loops are bounded and the
 * program ends in every schedule. Run natively, it fails now and then.
 *
 * The flags are atomic variables the threads communicate through, so their
 * accesses are annotated (stdbg_atomic_read, stdbg_atomic_write): the
 * default search (DPOR) only reorders what it sees, and would otherwise
 * take the writes of high and low for independent of medium's check. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdbg.h>

static pthread_mutex_t bus_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cpu_lock = PTHREAD_MUTEX_INITIALIZER;

static atomic_bool low_has_bus;  /* low holds bus_lock */
static atomic_bool high_waiting; /* high asked for the bus, did not get it yet */
static int bus_data;             /* protected by bus_lock */

static void *low(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&bus_lock);
	stdbg_atomic_write(&low_has_bus, sizeof low_has_bus);
	low_has_bus = true;
	/* The bus transaction needs the CPU to make progress. */
	pthread_mutex_lock(&cpu_lock);
	bus_data++;
	pthread_mutex_unlock(&cpu_lock);
	stdbg_atomic_write(&low_has_bus, sizeof low_has_bus);
	low_has_bus = false;
	pthread_mutex_unlock(&bus_lock);
	return NULL;
}

static void *medium(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&cpu_lock); /* medium computes: low cannot run */
	for (int i = 0; i < 2; i++) {
		stdbg_yield(); /* one unit of a long computation */
		stdbg_atomic_read(&high_waiting, sizeof high_waiting);
		stdbg_atomic_read(&low_has_bus, sizeof low_has_bus);
		stdbg_assert(!(high_waiting && low_has_bus),
		             "priority inversion: medium runs while high waits for the bus held by low");
	}
	pthread_mutex_unlock(&cpu_lock);
	return NULL;
}

static void *high(void *arg)
{
	(void)arg;
	stdbg_atomic_write(&high_waiting, sizeof high_waiting);
	high_waiting = true;
	pthread_mutex_lock(&bus_lock);
	stdbg_atomic_write(&high_waiting, sizeof high_waiting);
	high_waiting = false;
	bus_data++;
	pthread_mutex_unlock(&bus_lock);
	return NULL;
}

int main(void)
{
	pthread_t l, m, h;
	pthread_create(&m, NULL, medium, NULL);
	pthread_create(&l, NULL, low, NULL);
	pthread_create(&h, NULL, high, NULL);
	pthread_join(l, NULL);
	pthread_join(h, NULL);
	pthread_join(m, NULL);
	printf("bus used %d times\n", bus_data);
	return 0;
}
