/* A counter that several threads update at once: one mutex guards the
 * value, and counter_add reuses counter_get to read it. */
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

long counter_get(struct counter *c)
{
	pthread_mutex_lock(&c->lock);
	long v = c->value;
	pthread_mutex_unlock(&c->lock);
	return v;
}

void counter_add(struct counter *c, long n)
{
	pthread_mutex_lock(&c->lock);
	c->value = counter_get(c) + n;
	pthread_mutex_unlock(&c->lock);
}
