/* A counting semaphore: one mutex guards the value; down lets the others
 * in and looks again until the value is positive. */
#include <pthread.h>
#include <sched.h>

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
	while (s->value == 0) {
		pthread_mutex_unlock(&s->lock);
		sched_yield(); /* give an up() a chance */
		pthread_mutex_lock(&s->lock);
	}
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
