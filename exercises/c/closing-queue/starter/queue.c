/* A queue of work shared by a producer and consumer threads, which closes
 * when the work is done. queue_put adds an item (there is always room:
 * never more than CAPACITY items are put); queue_take waits for an item
 * and returns 1 with it, or returns 0 once the queue is closed and empty;
 * queue_close says no item will come any more, and every consumer waiting
 * must then give up. Use one mutex and condition variables; no busy
 * waiting. */
#include <pthread.h>

#define CAPACITY 4

struct queue {
	int items[CAPACITY];
	int head, count;
	int closed;
	/* add what you need */
};

void queue_init(struct queue *q)
{
	q->head = q->count = q->closed = 0;
}

void queue_put(struct queue *q, int item)
{
	q->items[(q->head + q->count) % CAPACITY] = item;
	q->count++;
}

int queue_take(struct queue *q, int *item)
{
	/* wait while empty and open */
	if (q->count == 0)
		return 0;
	*item = q->items[q->head];
	q->head = (q->head + 1) % CAPACITY;
	q->count--;
	return 1;
}

void queue_close(struct queue *q)
{
	q->closed = 1;
}
