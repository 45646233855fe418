/* A thread left blocked forever when the program ends.
 *
 * A worker waits for jobs on a condition variable until told to stop. main
 * hands it one job and returns, forgetting to set `stop' and signal: the
 * worker is still waiting when the process exits. Natively nothing shows
 * (exit kills it), but the worker never finishes its loop. stdbg must
 * report a leak: the program exited while a thread was blocked forever. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int jobs, done;
static bool stop;

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	while (!stop) {
		while (jobs == 0 && !stop)
			pthread_cond_wait(&wake, &lock);
		if (jobs > 0) {
			jobs--;
			done++;
		}
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_mutex_lock(&lock);
	jobs++;
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&lock);
	/* BUG: no stop = true, no signal, no join. */
	printf("submitted one job\n");
	return 0;
}
