/* The grader's race test of buffer.c: a producer puts one item into a
 * buffer of one slot while a consumer takes it. Built with the memory
 * instrumentation: every access to the buffer's fields is checked for
 * data races. */
#include <pthread.h>
#include <stdbg.h>
#include "polls.h" /* a busy-wait ends the run at once, not at the depth bound */
#include "buffer.c"

static struct buffer b;

static void *producer(void *arg)
{
	(void)arg;
	polls = 0;
	buffer_put(&b, 1);
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	polls = 0;
	stdbg_assert(buffer_take(&b) == 1, "the item taken is not the item put");
	return NULL;
}

int main(void)
{
	pthread_t p, c;
	buffer_init(&b);
	pthread_create(&c, NULL, consumer, NULL);
	pthread_create(&p, NULL, producer, NULL);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	return 0;
}
