/* A counter that several threads update at once.
 * Make counter_add and counter_get safe to call from any thread. */
#include <pthread.h>

struct counter {
	long value;
	/* add what you need */
};

void counter_init(struct counter *c)
{
	c->value = 0;
}

void counter_add(struct counter *c, long n)
{
	c->value += n;
}

long counter_get(struct counter *c)
{
	return c->value;
}
