/* publish.c fixed: the flag is an atomic_int, stored with release after
 * the message is written and loaded with acquire before it is read, so
 * the worker's writes happen before main's reads in every schedule.
 *
 *   stdbg find examples/c/memory/publish-atomic.c
 *
 * No bug: stdbg explores the schedules of the loads, stores and atomics
 * and finds no race. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct message {
	int length;
	char text[16];
};

static struct message *box;
static atomic_int ready;

static void *writer(void *arg)
{
	(void)arg;
	struct message *m = malloc(sizeof *m);
	m->length = 5;
	m->text[0] = 'h';
	box = m;
	atomic_store_explicit(&ready, 1, memory_order_release);
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, writer, NULL);
	if (atomic_load_explicit(&ready, memory_order_acquire))
		assert(box->length == 5);
	pthread_join(t, NULL);
	free(box);
	return 0;
}
