/* A start signal on a plain flag: the worker waits in a loop that only
 * reads `go`, main raises it once it has logged the start. Nothing orders
 * main's write of the flag before the worker's reads (an optimising
 * compiler may even read it once, before the loop, and spin for ever).
 *
 *   stdbg find examples/c/memory/spin-wait.c
 *
 * stdbg reports the data race on the flag. Its loop never reaches a thread
 * operation: after many reads of the same place, stdbg takes it for a
 * polling loop and lets the other threads run (a yield, "polls &go"). The
 * fix is an atomic_int flag, or a condition variable. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static int go;
static int started;

static void *worker(void *arg)
{
	(void)arg;
	while (!go)
		;
	started++;
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_mutex_lock(&log_lock);
	printf("starting the worker\n");
	pthread_mutex_unlock(&log_lock);
	go = 1;
	pthread_join(t, NULL);
	printf("%d started\n", started);
	return 0;
}
