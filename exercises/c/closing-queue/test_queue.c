/* The grader's test of queue.c: two consumers take items until the queue
 * closes; the main thread puts one item and closes it. Each item is taken
 * once, and both consumers end. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbg.h>
#include "polls.h" /* no busy-waiting: a thread takes the lock at most twice per call */
#include "queue.c"

static struct queue q;
static atomic_int taken;

static void *consumer(void *arg)
{
	(void)arg;
	int item;
	for (;;) {
		polls = 0;
		if (!queue_take(&q, &item))
			break;
		stdbg_assert(item == 7, "a consumer took an item that was never put");
		atomic_fetch_add(&taken, 1);
	}
	return NULL;
}

int main(void)
{
	pthread_t c[2];
	queue_init(&q);
	for (int i = 0; i < 2; i++)
		pthread_create(&c[i], NULL, consumer, NULL);
	polls = 0;
	queue_put(&q, 7);
	polls = 0;
	queue_close(&q);
	for (int i = 0; i < 2; i++)
		pthread_join(c[i], NULL);
	stdbg_assert(taken == 1, "the item was taken twice, or not at all");
	return 0;
}
