/* A NULL dereference in one interleaving only.
 *
 * main starts a worker, then publishes the configuration the worker
 * reads. Nothing makes the worker wait for it: if the worker runs before
 * main publishes, it dereferences a NULL pointer. Natively it depends on
 * who the OS runs first. stdbg must report a crash (SIGSEGV) in the
 * worker. */
#include <pthread.h>
#include <stdio.h>
#include <stdbg.h>

struct config {
	int verbosity;
};

static struct config *volatile current; /* published by main */
static int seen;

static void *worker(void *arg)
{
	(void)arg;
	stdbg_yield();
	seen = current->verbosity; /* BUG: current may still be NULL */
	return NULL;
}

int main(void)
{
	static struct config cfg = {2};
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	stdbg_yield();
	current = &cfg;
	pthread_join(t, NULL);
	printf("verbosity %d\n", seen);
	return 0;
}
