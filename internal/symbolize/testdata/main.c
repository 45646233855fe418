#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include "modmap.h"

void *shared_here(void);
void *shared_table_addr(void);

struct pair {
	long a;
	long b;
	int c;
};
struct pair gpair;
int gcounter = 42;
static int sstate[4];
pthread_mutex_t gforks[3];
struct table {
	int n;
	pthread_mutex_t locks[2];
} gtable;

__attribute__((noinline)) void *here(void) { return __builtin_return_address(0); }

__attribute__((noinline)) void *worker(int x) { /* LINE_WORKER */
	void *ra = here(); /* LINE_CALL */
	if (x > 100)
		sstate[0] = x;
	return ra;
}

int main(void) {
	printf("RA %p\n", worker(1));
	printf("FN %p\n", (void *)&worker);
	printf("GCOUNTER %p\n", (void *)&gcounter);
	printf("GPAIR_B %p\n", (void *)&gpair.b);
	printf("SSTATE2 %p\n", (void *)&sstate[2]);
	printf("GFORK0 %p\n", (void *)&gforks[0]);
	printf("GFORK2 %p\n", (void *)&gforks[2]);
	printf("GTABLE_LOCK1 %p\n", (void *)&gtable.locks[1]);
	/* Not referenced directly, so that no canonical PLT entry exists. */
	printf("LIBC %p\n", dlsym(RTLD_DEFAULT, "pthread_mutex_lock"));
	printf("SO_RA %p\n", shared_here());
	printf("SO_DATA %p\n", shared_table_addr());
	print_modmap();
	return 0;
}
