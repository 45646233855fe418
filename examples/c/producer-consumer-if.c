/* Bounded buffer with a condition wait guarded by `if' instead of `while'.
 *
 * One producer puts two items into a one-slot buffer; two consumers take
 * one item each. Consumers wait for an item with
 *     if (count == 0) pthread_cond_wait(&not_empty, &lock);
 * Bug: being woken up does not mean the buffer is still non-empty. The
 * producer signals consumer A; before A reacquires the lock, consumer B
 * (which never waited) takes the item; A then takes an item from an empty
 * buffer. stdbg must report the failed stdbg_assert in take(). With
 * `while' the program is correct. Run natively, it fails only in some
 * runs. */
#include <pthread.h>
#include <stdio.h>
#include <stdbg.h>

#define SLOTS 1
#define ITEMS 2

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static int buf[SLOTS];
static int count, in, out;

static void put(int v)
{
	pthread_mutex_lock(&lock);
	while (count == SLOTS) /* correct: the producer re-checks */
		pthread_cond_wait(&not_full, &lock);
	buf[in] = v;
	in = (in + 1) % SLOTS;
	count++;
	pthread_cond_signal(&not_empty);
	pthread_mutex_unlock(&lock);
}

static int take(void)
{
	pthread_mutex_lock(&lock);
	if (count == 0) /* BUG: should be while */
		pthread_cond_wait(&not_empty, &lock);
	stdbg_assert(count > 0, "take from an empty buffer");
	int v = buf[out];
	out = (out + 1) % SLOTS;
	count--;
	pthread_cond_signal(&not_full);
	pthread_mutex_unlock(&lock);
	return v;
}

static void *producer(void *arg)
{
	(void)arg;
	for (int i = 1; i <= ITEMS; i++)
		put(i);
	return NULL;
}

static void *consumer(void *arg)
{
	int *got = arg;
	*got = take();
	return NULL;
}

int main(void)
{
	pthread_t p, c[2];
	int got[2];
	pthread_create(&c[0], NULL, consumer, &got[0]);
	pthread_create(&p, NULL, producer, NULL);
	pthread_create(&c[1], NULL, consumer, &got[1]);
	pthread_join(p, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(c[i], NULL);
	printf("consumed %d and %d\n", got[0], got[1]);
	return 0;
}
