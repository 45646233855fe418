/* A program that forks twice, once before its first thread and once with a
 * worker running, and then takes two mutexes in the opposite order of its
 * worker: a deadly embrace. The children run free (stdbg follows the
 * process that keeps the threads); the deadlock after the forks is found
 * all the same.
 *
 *   stdbg find examples/c/fork-deadlock.c
 */
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t first = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t second = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&second);
	pthread_mutex_lock(&first);
	pthread_mutex_unlock(&first);
	pthread_mutex_unlock(&second);
	return NULL;
}

/* child does a little work of its own, with its own copy of the locks. */
static void child(void)
{
	pthread_mutex_lock(&first);
	pthread_mutex_unlock(&first);
	_exit(0);
}

int main(void)
{
	pid_t pid = fork();
	if (pid == 0)
		child();
	waitpid(pid, NULL, 0);

	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pid = fork();
	if (pid == 0)
		child();
	waitpid(pid, NULL, 0);

	pthread_mutex_lock(&first);
	pthread_mutex_lock(&second);
	pthread_mutex_unlock(&second);
	pthread_mutex_unlock(&first);
	pthread_join(t, NULL);
	return 0;
}
