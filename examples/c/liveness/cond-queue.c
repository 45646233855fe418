/* A bounded queue with a mutex and two condition variables, correct.
 *
 * The producer puts ITEMS items into a queue of CAP slots, the consumer
 * takes them out. "Every produced item is eventually consumed":
 *   stdbg find --ltl 'G(pending -> F !pending)' cond-queue.c
 * where the proposition pending says that some produced item has not been
 * consumed yet. It holds: every run ends with the queue empty. */
#include <pthread.h>
#include <stdbg.h>
#include <stdio.h>

#define CAP 2
#define ITEMS 3

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER, not_full = PTHREAD_COND_INITIALIZER;
static int queue[CAP], head, count;
static int produced, consumed;
static volatile int pending; /* proposition: produced > consumed */

static void *producer(void *arg)
{
	(void)arg;
	for (int i = 1; i <= ITEMS; i++) {
		pthread_mutex_lock(&m);
		while (count == CAP)
			pthread_cond_wait(&not_full, &m);
		queue[(head + count) % CAP] = i;
		count++;
		produced++;
		pending = produced > consumed;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	for (int i = 1; i <= ITEMS; i++) {
		pthread_mutex_lock(&m);
		while (count == 0)
			pthread_cond_wait(&not_empty, &m);
		int v = queue[head];
		head = (head + 1) % CAP;
		count--;
		consumed++;
		pending = produced > consumed;
		stdbg_assert(v == i, "items come out in order");
		stdbg_progress();
		pthread_cond_signal(&not_full);
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(void)
{
	stdbg_prop("pending", &pending);
	pthread_t p, c;
	pthread_create(&p, NULL, producer, NULL);
	pthread_create(&c, NULL, consumer, NULL);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	printf("%d items\n", consumed);
	return 0;
}
