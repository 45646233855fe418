/* one-lock: N threads (argument 1, default 4, at most 1000) each take one
 * mutex once to add one to a counter; main joins them and checks the sum.
 * Correct; every order of the N critical sections is a trace (N!), so a
 * search is stopped by an execution limit: it measures what an execution
 * costs as the number of threads grows. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXTHREADS 1000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int total;

static void *add_one(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&lock);
	total++;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	if (n < 1 || n > MAXTHREADS) {
		fprintf(stderr, "usage: one-lock [1..%d]\n", MAXTHREADS);
		return 2;
	}
	pthread_t t[MAXTHREADS];
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, add_one, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return total == n ? 0 : 1;
}
