/* A correct program that ends by replacing itself with another (exec):
 * for stdbg the exec is the end of the checked program, as an exit is, so
 * every schedule ends cleanly.
 *
 *   stdbg find examples/c/exec-end.c
 */
#include <pthread.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int done;

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	done++;
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_mutex_lock(&m);
	done++;
	pthread_mutex_unlock(&m);
	pthread_join(t, NULL);
	execl("/bin/true", "true", (char *)NULL);
	return 1; /* only if exec failed */
}
