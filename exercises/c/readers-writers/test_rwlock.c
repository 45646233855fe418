/* The grader's test of rwlock.c: two readers and a writer each go in once;
 * a writer must be alone inside, readers may share. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbg.h>
#include "polls.h" /* no busy-waiting: a thread takes the lock at most twice per call */
#include "rwlock.c"

static struct rwlock l;
static atomic_int readers_in, writers_in;

static void *reader(void *arg)
{
	(void)arg;
	polls = 0;
	read_lock(&l);
	atomic_fetch_add(&readers_in, 1);
	stdbg_yield(); /* others may run while this reader is inside */
	stdbg_assert(writers_in == 0, "a reader is inside with a writer");
	atomic_fetch_sub(&readers_in, 1);
	polls = 0;
	read_unlock(&l);
	return NULL;
}

static void *writer(void *arg)
{
	(void)arg;
	polls = 0;
	write_lock(&l);
	atomic_fetch_add(&writers_in, 1);
	stdbg_yield();
	stdbg_assert(writers_in == 1 && readers_in == 0, "a writer is not alone inside");
	atomic_fetch_sub(&writers_in, 1);
	polls = 0;
	write_unlock(&l);
	return NULL;
}

int main(void)
{
	pthread_t r[2], w;
	rw_init(&l);
	pthread_create(&r[0], NULL, reader, NULL);
	pthread_create(&w, NULL, writer, NULL);
	pthread_create(&r[1], NULL, reader, NULL);
	pthread_join(r[0], NULL);
	pthread_join(w, NULL);
	pthread_join(r[1], NULL);
	return 0;
}
