/* A hit counter with C11 threads (thrd_create, mtx_t, cnd_t).
 *
 * Each worker records hits in a shared counter, then reports that it is
 * done; main waits on a condition variable until every worker is done and
 * checks the total. Bug: a worker reads the counter under the lock,
 * releases it to "compute", and writes back the incremented value under
 * the lock again. Each access is locked, but the read-modify-write is not
 * atomic: two workers may read the same value and one hit is lost. stdbg
 * must report the failed stdbg_assert in main. Run natively, it fails
 * only in some runs. */
#include <stdio.h>
#include <threads.h>
#include <stdbg.h>

#define WORKERS 2

static mtx_t lock;
static cnd_t all_done;
static int hits, done;

static int worker(void *arg)
{
	(void)arg;
	mtx_lock(&lock);
	int v = hits;
	mtx_unlock(&lock);
	thrd_yield(); /* compute something with v */
	mtx_lock(&lock);
	hits = v + 1; /* BUG: hits may have changed since it was read */
	done++;
	cnd_signal(&all_done);
	mtx_unlock(&lock);
	return 0;
}

int main(void)
{
	thrd_t t[WORKERS];
	mtx_init(&lock, mtx_plain);
	cnd_init(&all_done);
	for (int i = 0; i < WORKERS; i++)
		thrd_create(&t[i], worker, NULL);
	mtx_lock(&lock);
	while (done < WORKERS)
		cnd_wait(&all_done, &lock);
	int total = hits;
	mtx_unlock(&lock);
	for (int i = 0; i < WORKERS; i++)
		thrd_join(t[i], NULL);
	stdbg_assert(total == WORKERS, "no hit is lost");
	printf("%d hits\n", total);
	cnd_destroy(&all_done);
	mtx_destroy(&lock);
	return 0;
}
