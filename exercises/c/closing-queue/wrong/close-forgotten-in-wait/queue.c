/* A queue of work that closes: one mutex guards it, and one condition
 * variable says that it may be worth looking again (an item came, or the
 * queue closed). Closing wakes every waiting consumer (broadcast): each
 * must see the queue closed and give up. */
#include <pthread.h>

#define CAPACITY 4

struct queue {
	int items[CAPACITY];
	int head, count;
	int closed;
	pthread_mutex_t lock;
	pthread_cond_t changed;
};

void queue_init(struct queue *q)
{
	q->head = q->count = q->closed = 0;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->changed, NULL);
}

void queue_put(struct queue *q, int item)
{
	pthread_mutex_lock(&q->lock);
	q->items[(q->head + q->count) % CAPACITY] = item;
	q->count++;
	pthread_cond_signal(&q->changed);
	pthread_mutex_unlock(&q->lock);
}

int queue_take(struct queue *q, int *item)
{
	pthread_mutex_lock(&q->lock);
	while (q->count == 0)
		pthread_cond_wait(&q->changed, &q->lock);
	if (q->count == 0) { /* closed and empty */
		pthread_mutex_unlock(&q->lock);
		return 0;
	}
	*item = q->items[q->head];
	q->head = (q->head + 1) % CAPACITY;
	q->count--;
	pthread_mutex_unlock(&q->lock);
	return 1;
}

void queue_close(struct queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed = 1;
	pthread_cond_broadcast(&q->changed);
	pthread_mutex_unlock(&q->lock);
}
