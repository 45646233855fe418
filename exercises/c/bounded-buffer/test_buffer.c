/* The grader's test of buffer.c: two producers put one item each into a
 * buffer of one slot, two consumers take one item each. */
#include <pthread.h>
#include <stdbg.h>
#include "polls.h" /* no busy-waiting: a thread takes the lock at most twice per item */
#include "buffer.c"

static struct buffer b;
static int got[2];

static void *producer(void *arg)
{
	polls = 0;
	buffer_put(&b, (int)(long)arg);
	return NULL;
}

static void *consumer(void *arg)
{
	polls = 0;
	got[(long)arg] = buffer_take(&b);
	return NULL;
}

int main(void)
{
	pthread_t p[2], c[2];
	buffer_init(&b);
	for (long i = 0; i < 2; i++) {
		pthread_create(&c[i], NULL, consumer, (void *)i);
		pthread_create(&p[i], NULL, producer, (void *)(i + 1));
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(p[i], NULL);
		pthread_join(c[i], NULL);
	}
	stdbg_assert(got[0] + got[1] == 3 && got[0] != got[1], "an item was lost or taken twice");
	return 0;
}
