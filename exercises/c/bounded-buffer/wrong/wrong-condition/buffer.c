/* A bounded buffer: one mutex guards the state, one condition variable per
 * thing to wait for, each wait in a loop that re-checks the condition. */
#include <pthread.h>
#include <stdbg.h>

#define SLOTS 1

struct buffer {
	int items[SLOTS];
	int count, in, out;
	pthread_mutex_t lock;
	pthread_cond_t not_full, not_empty;
};

void buffer_init(struct buffer *b)
{
	b->count = b->in = b->out = 0;
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->not_full, NULL);
	pthread_cond_init(&b->not_empty, NULL);
}

void buffer_put(struct buffer *b, int item)
{
	pthread_mutex_lock(&b->lock);
	while (b->count == SLOTS)
		pthread_cond_wait(&b->not_full, &b->lock);
	b->items[b->in] = item;
	b->in = (b->in + 1) % SLOTS;
	b->count++;
	pthread_cond_signal(&b->not_full);
	pthread_mutex_unlock(&b->lock);
}

int buffer_take(struct buffer *b)
{
	pthread_mutex_lock(&b->lock);
	while (b->count == 0)
		pthread_cond_wait(&b->not_empty, &b->lock);
	stdbg_assert(b->count > 0, "take from an empty buffer");
	int item = b->items[b->out];
	b->out = (b->out + 1) % SLOTS;
	b->count--;
	pthread_cond_signal(&b->not_full);
	pthread_mutex_unlock(&b->lock);
	return item;
}
