/* A condition wait guarded by if instead of while, with one waiter. The
 * waiter takes the item once it is told there is one; nothing else takes
 * it, so no other thread can steal it between the signal and the wake-up.
 * But POSIX lets pthread_cond_wait return without any signal (a spurious
 * wake-up), and then the waiter goes on with no item.
 *
 *   stdbg find examples/c/spurious-wakeup.c
 *   stdbg find --spurious-wakeups=false examples/c/spurious-wakeup.c
 *
 * stdbg lets each thread's wait return once without a signal, so the first
 * command finds the failure; without spurious wake-ups the program is
 * correct. Replace the if by while to fix it. */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t filled = PTHREAD_COND_INITIALIZER;
static int items;

static void *consumer(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	if (items == 0)
		pthread_cond_wait(&filled, &lock);
	assert(items > 0 && "an item is there after the wait");
	items--;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	pthread_t c;
	pthread_create(&c, NULL, consumer, NULL);
	pthread_mutex_lock(&lock);
	items++;
	pthread_cond_signal(&filled);
	pthread_mutex_unlock(&lock);
	pthread_join(c, NULL);
	return 0;
}
