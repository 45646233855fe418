/* A reusable barrier: the last thread to arrive resets the count for the
 * next round and wakes the others, who wait while the count is not back
 * to zero. */
#include <pthread.h>

struct barrier {
	int n;
	int arrived;
	pthread_mutex_t lock;
	pthread_cond_t all_here;
};

void barrier_init(struct barrier *b, int n)
{
	b->n = n;
	b->arrived = 0;
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->all_here, NULL);
}

void barrier_wait(struct barrier *b)
{
	pthread_mutex_lock(&b->lock);
	b->arrived++;
	if (b->arrived == b->n) {
		b->arrived = 0;
		pthread_cond_broadcast(&b->all_here);
	} else {
		while (b->arrived != 0)
			pthread_cond_wait(&b->all_here, &b->lock);
	}
	pthread_mutex_unlock(&b->lock);
}
