/* The grader's race test of queue.c: a consumer takes until the queue
 * closes while the main thread puts an item and closes it. Built with the
 * memory instrumentation: every access to the queue's fields is checked
 * for data races. */
#include <pthread.h>
#include <stdbg.h>
#include "polls.h" /* a busy-wait ends the run at once, not at the depth bound */
#include "queue.c"

static struct queue q;

static void *consumer(void *arg)
{
	(void)arg;
	int item;
	do
		polls = 0;
	while (queue_take(&q, &item));
	return NULL;
}

int main(void)
{
	pthread_t c;
	queue_init(&q);
	pthread_create(&c, NULL, consumer, NULL);
	polls = 0;
	queue_put(&q, 7);
	polls = 0;
	queue_close(&q);
	pthread_join(c, NULL);
	return 0;
}
