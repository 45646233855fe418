/* switchfloor: what the threads of a checked program cost on their one CPU
 * before stdbg does anything (docs/throughput.md).
 *
 * Part 1 passes a turn back and forth between two threads of one process
 * the way the library hands the turn from one checked thread to the next:
 * the giver sets the taker's word and wakes it with a futex, then sleeps
 * on its own word until the turn comes back. Part 2 creates and joins a
 * thread that does nothing, as every execution does for each of its
 * threads. Run it on one CPU, as stdbg places a program:
 *
 *   cc -O2 -pthread -o /tmp/switchfloor benchmarks/switchfloor/switchfloor.c
 *   taskset -c 1 /tmp/switchfloor
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 200000

static uint32_t go[2];

static void futex(uint32_t *w, int op, uint32_t v)
{
	syscall(SYS_futex, w, op, v, NULL, NULL, 0);
}

static void give(int to)
{
	__atomic_store_n(&go[to], 1, __ATOMIC_SEQ_CST);
	futex(&go[to], FUTEX_WAKE_PRIVATE, 1);
}

static void take(int me)
{
	while (!__atomic_load_n(&go[me], __ATOMIC_ACQUIRE))
		futex(&go[me], FUTEX_WAIT_PRIVATE, 0);
	__atomic_store_n(&go[me], 0, __ATOMIC_RELAXED);
}

static void *other(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		take(1);
		give(0);
	}
	return NULL;
}

static void *nothing(void *arg) { return arg; }

static double micros(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, other, NULL);
	double t0 = micros();
	for (int i = 0; i < ROUNDS; i++) {
		give(1);
		take(0);
	}
	double t1 = micros();
	pthread_join(t, NULL);
	printf("hand-over between two threads: %.2f us\n", (t1 - t0) / (2.0 * ROUNDS));

	int n = 20000;
	t0 = micros();
	for (int i = 0; i < n; i++) {
		pthread_create(&t, NULL, nothing, NULL);
		pthread_join(t, NULL);
	}
	t1 = micros();
	printf("create and join of a thread: %.2f us\n", (t1 - t0) / n);
	return 0;
}
