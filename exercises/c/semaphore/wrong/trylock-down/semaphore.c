/* A counting semaphore: one mutex guards the value, one condition variable
 * says it may have become positive. down does not queue behind another
 * thread that holds the lock: it tries the lock and gives up if busy. */
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
	if (pthread_mutex_trylock(&s->lock) != 0)
		return; /* someone else is in there */
	while (s->value == 0)
		pthread_cond_wait(&s->positive, &s->lock);
	s->value--;
	pthread_mutex_unlock(&s->lock);
}

void semaphore_up(struct semaphore *s)
{
	pthread_mutex_lock(&s->lock);
	s->value++;
	pthread_cond_signal(&s->positive);
	pthread_mutex_unlock(&s->lock);
}
