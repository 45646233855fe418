/* A ring buffer whose producers share the tail index without a lock: each
 * writes its item at buf[tail] and then advances tail. Two producers can
 * both read the same tail, write the same slot and advance it to the same
 * value: one item is lost and a slot is never written.
 *
 *   stdbg find --races=false examples/c/memory/ring-buffer.c
 *   stdbg find examples/c/memory/ring-buffer.c
 */
#include <assert.h>
#include <pthread.h>

#define SLOTS 4
#define EMPTY (-1)

static int buf[SLOTS] = {EMPTY, EMPTY, EMPTY, EMPTY};
static unsigned tail;

static void put(int item)
{
	unsigned t = tail;
	buf[t % SLOTS] = item;
	tail = t + 1;
}

static void *producer(void *arg)
{
	put((int)(long)arg);
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, producer, (void *)1);
	pthread_create(&b, NULL, producer, (void *)2);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(tail == 2 && "both items were put");
	assert(buf[0] != EMPTY && buf[1] != EMPTY && buf[0] != buf[1] && "each item has its own slot");
	return 0;
}
