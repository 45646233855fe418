/* The grader's race test of rwlock.c: a reader and a writer go in once
 * each. Built with the memory instrumentation: every access to the lock's
 * fields is checked for data races. */
#include <pthread.h>
#include <stdbg.h>
#include "polls.h" /* a busy-wait ends the run at once, not at the depth bound */
#include "rwlock.c"

static struct rwlock l;

static void *reader(void *arg)
{
	(void)arg;
	polls = 0;
	read_lock(&l);
	polls = 0;
	read_unlock(&l);
	return NULL;
}

static void *writer(void *arg)
{
	(void)arg;
	polls = 0;
	write_lock(&l);
	polls = 0;
	write_unlock(&l);
	return NULL;
}

int main(void)
{
	pthread_t r, w;
	rw_init(&l);
	pthread_create(&r, NULL, reader, NULL);
	pthread_create(&w, NULL, writer, NULL);
	pthread_join(r, NULL);
	pthread_join(w, NULL);
	return 0;
}
