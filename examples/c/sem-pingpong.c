/* Ping-pong with two unnamed semaphores (a correct program).
 *
 * main serves, the partner returns, for a few rounds: each side posts the
 * other's semaphore and waits on its own. main waits for the return in
 * three ways, one after the other: sem_trywait, then sem_timedwait with a
 * deadline, then sem_wait. At the end it checks sem_getvalue and the error
 * paths (trywait on 0 gives EAGAIN, timedwait on 0 with a past deadline
 * gives ETIMEDOUT). stdbg must explore every schedule, both outcomes of
 * trywait and timedwait included, and find nothing. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>
#include <stdbg.h>

#define ROUNDS 2

static sem_t ping, pong;
static int rally; /* odd after a serve, even after a return */

static void *partner(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		sem_wait(&ping);
		stdbg_assert(rally == 2 * i + 1, "the partner returns a serve");
		rally++;
		sem_post(&pong);
	}
	return NULL;
}

static void wait_pong(void)
{
	if (sem_trywait(&pong) == 0)
		return;
	stdbg_assert(errno == EAGAIN, "sem_trywait fails with EAGAIN");
	struct timespec deadline;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 5;
	if (sem_timedwait(&pong, &deadline) == 0)
		return;
	stdbg_assert(errno == ETIMEDOUT, "sem_timedwait fails with ETIMEDOUT");
	sem_wait(&pong);
}

int main(void)
{
	pthread_t t;
	sem_init(&ping, 0, 0);
	sem_init(&pong, 0, 0);
	pthread_create(&t, NULL, partner, NULL);
	for (int i = 0; i < ROUNDS; i++) {
		rally++;
		sem_post(&ping);
		wait_pong();
		stdbg_assert(rally == 2 * i + 2, "every serve is returned");
	}
	pthread_join(t, NULL);

	int v = -1;
	sem_getvalue(&ping, &v);
	stdbg_assert(v == 0, "ping is back to 0");
	sem_post(&ping);
	sem_post(&ping);
	sem_getvalue(&ping, &v);
	stdbg_assert(v == 2, "two posts make 2");
	stdbg_assert(sem_trywait(&ping) == 0, "sem_trywait takes a token");
	struct timespec past = {0, 0};
	stdbg_assert(sem_timedwait(&ping, &past) == 0, "sem_timedwait takes the last token");
	stdbg_assert(sem_timedwait(&ping, &past) == -1 && errno == ETIMEDOUT, "sem_timedwait on 0 times out");
	stdbg_assert(sem_trywait(&ping) == -1 && errno == EAGAIN, "sem_trywait on 0 fails");
	sem_getvalue(&ping, &v);
	stdbg_assert(v == 0, "ping is 0 again");
	sem_destroy(&ping);
	sem_destroy(&pong);
	printf("%d strokes\n", rally);
	return 0;
}
