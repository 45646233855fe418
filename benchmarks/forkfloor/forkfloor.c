/* forkfloor: what an execution costs before stdbg does anything.
 *
 * Each round forks a child that creates and joins N threads doing nothing
 * and leaves with _exit; the parent waits for it. This is the least work a
 * fork-per-execution checker does for a program with N threads, so
 * 1e6 / (microseconds per round) bounds its executions per second on one
 * CPU.
 *
 *   cc -O2 -pthread -o /tmp/forkfloor benchmarks/forkfloor/forkfloor.c
 *   taskset -c 0 /tmp/forkfloor 2        # N = 2, as in deadly-embrace.c
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void *nothing(void *arg) { return arg; }

static double micros(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 2;
	int rounds = argc > 2 ? atoi(argv[2]) : 2000;
	if (threads < 0 || threads > 64 || rounds < 1) {
		fprintf(stderr, "usage: forkfloor [THREADS (0-64)] [ROUNDS]\n");
		return 2;
	}
	double start = micros();
	for (int i = 0; i < rounds; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			pthread_t t[64];
			for (int k = 0; k < threads; k++)
				if (pthread_create(&t[k], NULL, nothing, NULL) != 0)
					_exit(1);
			for (int k = 0; k < threads; k++)
				pthread_join(t[k], NULL);
			_exit(0);
		}
		int status;
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "forkfloor: a child failed\n");
			return 1;
		}
	}
	double us = (micros() - start) / rounds;
	printf("%d threads: %.1f us per fork, thread creations and exit (at most %.0f executions/s)\n", threads, us, 1e6 / us);
	return 0;
}
