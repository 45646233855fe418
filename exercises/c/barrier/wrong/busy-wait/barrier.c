/* A reusable barrier: the round number (a generation) changes when the
 * last thread arrives; the others wait until it has changed, which no
 * later round can undo. */
#include <pthread.h>

struct barrier {
	int n;
	int arrived;
	unsigned round;
	pthread_mutex_t lock;
	pthread_cond_t all_here;
};

void barrier_init(struct barrier *b, int n)
{
	b->n = n;
	b->arrived = 0;
	b->round = 0;
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->all_here, NULL);
}

void barrier_wait(struct barrier *b)
{
	pthread_mutex_lock(&b->lock);
	unsigned round = b->round;
	b->arrived++;
	if (b->arrived == b->n) {
		b->arrived = 0;
		b->round++;
		pthread_cond_broadcast(&b->all_here);
	} else {
		while (b->round == round) { /* look again until the round changes */
			pthread_mutex_unlock(&b->lock);
			pthread_mutex_lock(&b->lock);
		}
	}
	pthread_mutex_unlock(&b->lock);
}
