/* A token ring: three workers take turns through a shared turn variable;
 * the one whose number it holds may work, then passes the token on. This
 * one passes the token before it has left its critical section, so the
 * next worker can enter while it is still inside.
 *
 *   stdbg find --races=false examples/c/memory/token-ring.c
 *   stdbg find examples/c/memory/token-ring.c
 *
 * Each worker tries a bounded number of times (a sched_yield between), so
 * every schedule ends. */
#include <assert.h>
#include <pthread.h>
#include <sched.h>

#define WORKERS 3
#define TRIES 4

static int turn;   /* whose turn it is */
static int inside; /* workers in the critical section */

static void *worker(void *arg)
{
	int me = (int)(long)arg;
	for (int try = 0; try < TRIES; try++) {
		if (turn == me) {
			inside++;
			turn = (me + 1) % WORKERS; /* too early: still inside */
			assert(inside == 1 && "one worker at a time");
			inside--;
			return NULL;
		}
		sched_yield();
	}
	return NULL;
}

int main(void)
{
	pthread_t t[WORKERS];
	for (long i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	return 0;
}
