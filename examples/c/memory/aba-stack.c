/* The ABA problem in a lock-free stack, without annotations: the top of a
 * Treiber stack of free items is a C11 atomic pointer; alloc pops with a
 * compare-and-swap, free pushes the same way.
 *
 *   stdbg find --races=false examples/c/memory/aba-stack.c
 *   stdbg find examples/c/memory/aba-stack.c
 *
 * Built with --memory, the atomic loads and compare-and-swaps and the plain
 * accesses to the items are the scheduling points: no stdbg_yield is
 * needed. Main reads top = A and A->next = B; the worker pops A and B and
 * pushes A back; main's swap still succeeds and puts B, which the worker
 * holds, on the free list: an assertion fails (or a pop follows a poisoned
 * pointer). With the race detector on, stdbg reports first the data race
 * at the heart of it: main reads A->next while the worker writes it. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#define ITEMS 3
#define FREE 0
#define POISON ((struct item *)(uintptr_t)0xdead)

struct item {
	struct item *next;
	int owner; /* FREE, or the id of the thread holding it */
};

static struct item items[ITEMS];
static _Atomic(struct item *) top;

static struct item *alloc(int me)
{
	for (;;) {
		struct item *old = atomic_load(&top);
		if (old == NULL)
			return NULL;
		struct item *next = old->next;
		if (atomic_compare_exchange_strong(&top, &old, next)) {
			assert(old->owner == FREE && "alloc returns a free item");
			old->owner = me;
			old->next = POISON;
			return old;
		}
	}
}

static void release(struct item *it, int me)
{
	assert(it->owner == me && "a thread frees what it holds");
	it->owner = FREE;
	for (;;) {
		struct item *old = atomic_load(&top);
		it->next = old;
		if (atomic_compare_exchange_strong(&top, &old, it))
			return;
	}
}

static void *worker(void *arg)
{
	int me = (int)(intptr_t)arg;
	struct item *a = alloc(me);
	struct item *b = alloc(me);
	release(a, me); /* A goes back on top: the ABA */
	release(b, me);
	return NULL;
}

int main(void)
{
	for (int i = 0; i < ITEMS; i++)
		items[i].next = i + 1 < ITEMS ? &items[i + 1] : NULL;
	atomic_store(&top, &items[0]);

	pthread_t t;
	pthread_create(&t, NULL, worker, (void *)2);
	struct item *mine = alloc(1);
	pthread_join(t, NULL);
	release(mine, 1);

	int n = 0;
	for (struct item *it = atomic_load(&top); it != NULL; it = it->next) {
		assert(it != POISON && "the free list links no allocated item");
		assert(it->owner == FREE && "no item in use is on the free list");
		assert(++n <= ITEMS && "the free list has no cycle");
	}
	assert(n == ITEMS && "every item is back on the free list");
	printf("%d items free\n", n);
	return 0;
}
