/* A readers-writers lock: any number of readers may be inside at once, a
 * writer only alone. A writer that is waiting must get in eventually, even
 * while readers keep coming: no writer starvation. Use one mutex and
 * condition variables; no busy waiting and no pthread_rwlock_t. */
#include <pthread.h>

struct rwlock {
	int readers; /* readers inside */
	int writing; /* 1 while a writer is inside */
	/* add what you need */
};

void rw_init(struct rwlock *l)
{
	l->readers = l->writing = 0;
}

void read_lock(struct rwlock *l)
{
	/* wait while a reader may not go in */
	l->readers++;
}

void read_unlock(struct rwlock *l)
{
	l->readers--;
}

void write_lock(struct rwlock *l)
{
	/* wait while a writer may not go in */
	l->writing = 1;
}

void write_unlock(struct rwlock *l)
{
	l->writing = 0;
}
