#include <pthread.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int n;
static void work(void)
{
	pthread_mutex_lock(&m);
	n++;
	pthread_mutex_unlock(&m);
}
