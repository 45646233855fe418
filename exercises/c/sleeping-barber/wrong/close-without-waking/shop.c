/* The sleeping barber: one mutex guards the shop; customers take a ticket
 * when they sit down and wait until the barber has called that ticket; the
 * barber sleeps until a customer sits down or the shop closes. */
#include <pthread.h>

#define CHAIRS 1 /* the waiting room */

struct shop {
	int waiting;  /* customers in the waiting room */
	int arrivals; /* tickets given to customers who sat down */
	int called;   /* tickets the barber has called */
	int closed;
	pthread_mutex_t lock;
	pthread_cond_t customer_here; /* the barber sleeps on it */
	pthread_cond_t your_turn;     /* the customers wait on it */
};

void shop_init(struct shop *s)
{
	s->waiting = s->arrivals = s->called = s->closed = 0;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->customer_here, NULL);
	pthread_cond_init(&s->your_turn, NULL);
}

int visit(struct shop *s)
{
	pthread_mutex_lock(&s->lock);
	if (s->waiting == CHAIRS) { /* the waiting room is full: leave */
		pthread_mutex_unlock(&s->lock);
		return 0;
	}
	int ticket = s->arrivals++;
	s->waiting++;
	pthread_cond_signal(&s->customer_here);
	while (s->called <= ticket)
		pthread_cond_wait(&s->your_turn, &s->lock);
	pthread_mutex_unlock(&s->lock);
	return 1;
}

int barber_next(struct shop *s)
{
	pthread_mutex_lock(&s->lock);
	while (s->waiting == 0 && !s->closed)
		pthread_cond_wait(&s->customer_here, &s->lock);
	if (s->waiting == 0) { /* closed, and nobody waits */
		pthread_mutex_unlock(&s->lock);
		return 0;
	}
	s->waiting--;
	s->called++;
	pthread_cond_broadcast(&s->your_turn);
	pthread_mutex_unlock(&s->lock);
	return 1;
}

void shop_close(struct shop *s)
{
	pthread_mutex_lock(&s->lock);
	s->closed = 1; /* the barber sees it when he wakes up */
	pthread_mutex_unlock(&s->lock);
}
