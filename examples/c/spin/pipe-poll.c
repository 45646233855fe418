/* A poll of a pipe (a correct program): the worker writes a byte into a
 * pipe; main reads the pipe without blocking, yielding until the byte is
 * there.
 *
 *   stdbg find examples/c/spin/pipe-poll.c
 *
 * What main's loop reads comes from the kernel, which the checker does not
 * see: the library counts main's call of read, a function it does not
 * model, and main's iterations are never taken for ones that changed
 * nothing (docs/spin.md). The search must end without a report. */
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

static int fds[2];
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	(void)arg;
	char c = 'x';
	assert(write(fds[1], &c, 1) == 1);
	return NULL;
}

int main(void)
{
	/* (The pipe is made after the first scheduling point, where stdbg
	 * starts each execution: every execution has a pipe of its own.) */
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	assert(pipe(fds) == 0);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	char c = 0;
	while (read(fds[0], &c, 1) != 1)
		sched_yield();
	assert(c == 'x');
	pthread_join(t, NULL);
	return 0;
}
