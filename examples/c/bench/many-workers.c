/* many-workers: N threads (default 100, argument 1) each read a shared
 * counter under a mutex, release it, and take it again to store the value
 * read plus one. Every access is locked, yet an update is lost when a
 * worker is preempted between its two critical sections and another
 * worker runs in between: main's final check fails.
 *
 * With many threads, preemption bounding cannot finish even its first
 * round (every order of the workers is a schedule without preemptions);
 * delay bounding (--delays 1) finds the bug in about one execution per
 * worker. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXWORKERS 256

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int total;

static void *work(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&lock);
	int seen = total;
	pthread_mutex_unlock(&lock);
	pthread_mutex_lock(&lock);
	total = seen + 1;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	if (n < 1 || n > MAXWORKERS) {
		fprintf(stderr, "usage: many-workers [1..%d]\n", MAXWORKERS);
		return 2;
	}
	pthread_t workers[MAXWORKERS];
	for (int i = 0; i < n; i++)
		pthread_create(&workers[i], NULL, work, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(workers[i], NULL);
	assert(total == n);
	return 0;
}
