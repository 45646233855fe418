/* Deadly embrace: two threads take the same two locks in opposite orders.
 * Each run usually works; one interleaving blocks both threads forever. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t first = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t second = PTHREAD_MUTEX_INITIALIZER;
static int transfers;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2; i++) {
		pthread_mutex_lock(&second);
		pthread_mutex_lock(&first);
		transfers++;
		pthread_mutex_unlock(&first);
		pthread_mutex_unlock(&second);
	}
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	for (int i = 0; i < 2; i++) {
		pthread_mutex_lock(&first);
		pthread_mutex_lock(&second);
		transfers++;
		pthread_mutex_unlock(&second);
		pthread_mutex_unlock(&first);
	}
	pthread_join(t, NULL);
	printf("%d transfers\n", transfers);
	return 0;
}
