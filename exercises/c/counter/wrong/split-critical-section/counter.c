/* A counter that several threads update at once: every access to the
 * value is made with the mutex held, and the mutex is held as briefly as
 * possible. */
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
	long v = counter_get(c);
	pthread_mutex_lock(&c->lock);
	c->value = v + n;
	pthread_mutex_unlock(&c->lock);
}
