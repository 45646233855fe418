/* Readers and a writer share a record through a pthread rwlock (a correct
 * program).
 *
 * The writer updates the two halves of a record with a yield in between,
 * under the write lock; readers check under the read lock that the halves
 * agree. main reads too: it holds a read lock while it starts the writer
 * and a second reader. The writer tries pthread_rwlock_trywrlock first and
 * falls back to pthread_rwlock_wrlock; the reader does the same with
 * tryrdlock and rdlock, so both the success and the EBUSY paths run. At
 * the end main checks the try variants on an idle lock. stdbg must find
 * nothing. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdbg.h>

static pthread_rwlock_t rw;
static int lo, hi; /* equal whenever the write lock is free */

static void *writer(void *arg)
{
	(void)arg;
	if (pthread_rwlock_trywrlock(&rw) != 0)
		pthread_rwlock_wrlock(&rw);
	lo++;
	stdbg_yield(); /* readers must not see lo != hi */
	hi++;
	pthread_rwlock_unlock(&rw);
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	if (pthread_rwlock_tryrdlock(&rw) != 0)
		pthread_rwlock_rdlock(&rw);
	stdbg_assert(lo == hi, "a reader sees a consistent record");
	pthread_rwlock_unlock(&rw);
	return NULL;
}

int main(void)
{
	pthread_t w, r;
	pthread_rwlock_init(&rw, NULL);
	pthread_rwlock_rdlock(&rw);
	pthread_create(&w, NULL, writer, NULL);
	pthread_create(&r, NULL, reader, NULL);
	stdbg_assert(lo == hi, "main sees a consistent record");
	pthread_rwlock_unlock(&rw);
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	stdbg_assert(lo == 1 && hi == 1, "the write happened once");

	/* The try variants on an idle lock, from one thread. */
	stdbg_assert(pthread_rwlock_tryrdlock(&rw) == 0, "tryrdlock on a free lock");
	stdbg_assert(pthread_rwlock_tryrdlock(&rw) == 0, "read holds are shared");
	stdbg_assert(pthread_rwlock_trywrlock(&rw) == EBUSY, "trywrlock fails while read-held");
	pthread_rwlock_unlock(&rw);
	pthread_rwlock_unlock(&rw);
	stdbg_assert(pthread_rwlock_trywrlock(&rw) == 0, "trywrlock on a free lock");
	pthread_rwlock_unlock(&rw);
	pthread_rwlock_destroy(&rw);
	printf("record %d/%d\n", lo, hi);
	return 0;
}
