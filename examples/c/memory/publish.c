/* Publication without a barrier: a worker fills a message on the heap and
 * raises a plain flag; main, if it sees the flag, reads the message. Nothing
 * orders the worker's writes before main's reads.
 *
 *   stdbg find examples/c/memory/publish.c
 *
 * stdbg reports the data race on the flag. Making the flag an atomic_int
 * (store with release, load with acquire) is the fix: see
 * publish-atomic.c. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

struct message {
	int length;
	char text[16];
};

static struct message *box;
static int ready;

static void *writer(void *arg)
{
	(void)arg;
	struct message *m = malloc(sizeof *m);
	m->length = 5;
	m->text[0] = 'h';
	box = m;
	ready = 1;
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, writer, NULL);
	if (ready)
		assert(box->length == 5);
	pthread_join(t, NULL);
	free(box);
	return 0;
}
