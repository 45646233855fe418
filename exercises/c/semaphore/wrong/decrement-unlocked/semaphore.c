/* A counting semaphore: one mutex guards the value, one condition variable
 * says it may have become positive; the lock is held only for the wait. */
#include <pthread.h>

struct semaphore {
	int value;
	pthread_mutex_t lock;
	pthread_cond_t positive;
};

void semaphore_init(struct semaphore *s, int value)
{
	s->value = value;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->positive, NULL);
}

void semaphore_down(struct semaphore *s)
{
	pthread_mutex_lock(&s->lock);
	while (s->value == 0)
		pthread_cond_wait(&s->positive, &s->lock);
	pthread_mutex_unlock(&s->lock);
	s->value--; /* it was positive: take the unit */
}

void semaphore_up(struct semaphore *s)
{
	pthread_mutex_lock(&s->lock);
	s->value++;
	pthread_cond_signal(&s->positive);
	pthread_mutex_unlock(&s->lock);
}
