/* The harness of the hostile submissions: two threads run the student's
 * work(), the main thread joins them. */
#include <pthread.h>
#include <stdbg.h>
#include "prog.c"

static void *run(void *arg)
{
	(void)arg;
	work();
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, run, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
