/* A bounded buffer of SLOTS items shared by producer and consumer threads.
 * buffer_put waits while the buffer is full; buffer_take waits while it is
 * empty. Use one mutex and condition variables. */
#include <pthread.h>

#define SLOTS 1

struct buffer {
	int items[SLOTS];
	int count, in, out;
	/* add the mutex and condition variables */
};

void buffer_init(struct buffer *b)
{
	b->count = b->in = b->out = 0;
}

void buffer_put(struct buffer *b, int item)
{
	/* wait while full, then store the item */
	b->items[b->in] = item;
	b->in = (b->in + 1) % SLOTS;
	b->count++;
}

int buffer_take(struct buffer *b)
{
	/* wait while empty, then remove an item */
	int item = b->items[b->out];
	b->out = (b->out + 1) % SLOTS;
	b->count--;
	return item;
}
