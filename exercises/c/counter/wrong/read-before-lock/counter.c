/* A counter that several threads update at once: the new value is worked
 * out first, and the mutex is taken only to store it. */
#include <pthread.h>

struct counter {
	long value;
	pthread_mutex_t lock;
};

void counter_init(struct counter *c)
{
	c->value = 0;
	pthread_mutex_init(&c->lock, NULL);
}

void counter_add(struct counter *c, long n)
{
	long v = c->value + n;
	pthread_mutex_lock(&c->lock);
	c->value = v;
	pthread_mutex_unlock(&c->lock);
}

long counter_get(struct counter *c)
{
	pthread_mutex_lock(&c->lock);
	long v = c->value;
	pthread_mutex_unlock(&c->lock);
	return v;
}
