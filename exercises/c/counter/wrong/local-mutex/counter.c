/* A counter that several threads update at once: one mutex guards the
 * value, for writes and reads alike. */
#include <pthread.h>

struct counter {
	long value;
};

void counter_init(struct counter *c)
{
	c->value = 0;
}

void counter_add(struct counter *c, long n)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&lock);
	c->value += n;
	pthread_mutex_unlock(&lock);
}

long counter_get(struct counter *c)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&lock);
	long v = c->value;
	pthread_mutex_unlock(&lock);
	return v;
}
