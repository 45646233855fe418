/* Two threads each claim a resource, use it (progress) and release it. */
#include <pthread.h>
#include <sched.h>
#include <stdbg.h>

static int done;

#include "claim.c"

static void *user(void *arg)
{
	int me = (int)(long)arg;
	claim(me);
	stdbg_progress();
	release(me);
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	stdbg_prop("done", &done);
	pthread_create(&a, NULL, user, (void *)0L);
	pthread_create(&b, NULL, user, (void *)1L);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	done = 1;
	return 0;
}
