/* A reference count decremented without atomics: two owners drop their
 * reference to a shared buffer; the one that brings the count to zero
 * frees it. With a plain --refs both may see 1 and neither frees it (a
 * leak), or both see 0 and free it twice.
 *
 *   stdbg find examples/c/memory/refcount.c
 *   stdbg find --races=false examples/c/memory/refcount.c
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

struct buffer {
	int refs;
	char data[32];
};

static int frees;

static void release(struct buffer *b)
{
	if (--b->refs == 0) {
		frees++;
		free(b);
	}
}

static void *owner(void *arg)
{
	release(arg);
	return NULL;
}

int main(void)
{
	struct buffer *b = calloc(1, sizeof *b);
	b->refs = 2;
	pthread_t x, y;
	pthread_create(&x, NULL, owner, b);
	pthread_create(&y, NULL, owner, b);
	pthread_join(x, NULL);
	pthread_join(y, NULL);
	assert(frees == 1);
	return 0;
}
