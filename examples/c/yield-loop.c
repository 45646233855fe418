/* Two threads that yield many times: a correct program used to measure
 * the cost of one transition (benchmarks/). */
#include <pthread.h>
#include <sched.h>

static void *spin(void *arg)
{
	(void)arg;
	for (int i = 0; i < 100000; i++)
		sched_yield();
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, spin, NULL);
	spin(NULL);
	pthread_join(t, NULL);
	return 0;
}
