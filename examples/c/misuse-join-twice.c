/* Joining a thread twice.
 *
 * A cleanup path joins a worker that the normal path already joined. Once
 * joined, a thread id is dead and may even be reused by a new thread:
 * joining it again is undefined behaviour (glibc usually returns an error,
 * which the program ignores). stdbg must report a misuse at the second
 * pthread_join. */
#include <pthread.h>
#include <stdio.h>

static int work;

static void *worker(void *arg)
{
	(void)arg;
	work++;
	return NULL;
}

static void cleanup(pthread_t t)
{
	pthread_join(t, NULL); /* BUG: already joined by main */
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	cleanup(t);
	printf("work %d\n", work);
	return 0;
}
