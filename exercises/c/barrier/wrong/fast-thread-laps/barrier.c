/* A reusable barrier: threads wait until all n have arrived; the last
 * thread to leave resets the count for the next round. */
#include <pthread.h>

struct barrier {
	int n;
	int arrived;
	int left;
	pthread_mutex_t lock;
	pthread_cond_t all_here;
};

void barrier_init(struct barrier *b, int n)
{
	b->n = n;
	b->arrived = b->left = 0;
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->all_here, NULL);
}

void barrier_wait(struct barrier *b)
{
	pthread_mutex_lock(&b->lock);
	b->arrived++;
	if (b->arrived == b->n)
		pthread_cond_broadcast(&b->all_here);
	while (b->arrived < b->n)
		pthread_cond_wait(&b->all_here, &b->lock);
	if (++b->left == b->n) /* the last one out resets the barrier */
		b->arrived = b->left = 0;
	pthread_mutex_unlock(&b->lock);
}
