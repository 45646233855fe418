/* Leader election without a lock: each of two candidates checks that the
 * other has not claimed leadership, then claims it.
 *
 * Bug: the check and the claim are separate steps. If both candidates check
 * before either claims, both become leader. stdbg must find the schedule
 * (both threads pass their check, then both write) and report the failed
 * stdbg_assert in main. Run natively, the program usually elects a single
 * leader. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbg.h>

static volatile bool leader[2]; /* leader[i]: candidate i claimed leadership */

static void *candidate(void *arg)
{
	int me = (int)(intptr_t)arg;
	int other = 1 - me;
	stdbg_yield(); /* before reading the other's flag */
	if (!leader[other]) {
		stdbg_yield(); /* before writing our own flag */
		leader[me] = true;
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (intptr_t i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, candidate, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	stdbg_assert(!(leader[0] && leader[1]), "at most one leader");
	printf("leaders: %d %d\n", leader[0], leader[1]);
	return 0;
}
