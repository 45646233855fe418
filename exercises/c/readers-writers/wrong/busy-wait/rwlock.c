/* A readers-writers lock that lets a waiting writer go first: a writer
 * counts itself in writers_waiting before it waits, and new readers wait
 * while that count is not zero, so the readers inside drain and the writer
 * gets in. */
#include <pthread.h>

struct rwlock {
	int readers;
	int writing;
	int writers_waiting;
	pthread_mutex_t lock;
	pthread_cond_t readers_ok, writer_ok;
};

void rw_init(struct rwlock *l)
{
	l->readers = l->writing = l->writers_waiting = 0;
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->readers_ok, NULL);
	pthread_cond_init(&l->writer_ok, NULL);
}

void read_lock(struct rwlock *l)
{
	pthread_mutex_lock(&l->lock);
	while (l->writing || l->writers_waiting > 0)
		pthread_cond_wait(&l->readers_ok, &l->lock);
	l->readers++;
	pthread_mutex_unlock(&l->lock);
}

void read_unlock(struct rwlock *l)
{
	pthread_mutex_lock(&l->lock);
	l->readers--;
	if (l->readers == 0)
		pthread_cond_signal(&l->writer_ok);
	pthread_mutex_unlock(&l->lock);
}

void write_lock(struct rwlock *l)
{
	pthread_mutex_lock(&l->lock);
	l->writers_waiting++;
	while (l->writing || l->readers > 0) {
		pthread_mutex_unlock(&l->lock); /* let the readers out */
		pthread_mutex_lock(&l->lock);
	}
	l->writers_waiting--;
	l->writing = 1;
	pthread_mutex_unlock(&l->lock);
}

void write_unlock(struct rwlock *l)
{
	pthread_mutex_lock(&l->lock);
	l->writing = 0;
	pthread_cond_signal(&l->writer_ok);
	pthread_cond_broadcast(&l->readers_ok);
	pthread_mutex_unlock(&l->lock);
}
