/* A counting semaphore built from a mutex and a condition variable.
 * semaphore_down waits until the value is positive, then decrements it;
 * semaphore_up increments it and lets a waiting thread go on. Do not use
 * <semaphore.h>. */
#include <pthread.h>

struct semaphore {
	int value;
	/* add a mutex and a condition variable */
};

void semaphore_init(struct semaphore *s, int value)
{
	s->value = value;
}

void semaphore_down(struct semaphore *s)
{
	/* wait until the value is positive */
	s->value--;
}

void semaphore_up(struct semaphore *s)
{
	s->value++;
	/* let a waiting thread go on */
}
