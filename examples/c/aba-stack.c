/* The ABA problem in a lock-free stack allocator.
 *
 * Free items are kept on a Treiber stack: alloc pops with a compare-and-
 * swap of the top pointer, free pushes the same way. The pop reads top (A)
 * and A->next (B), then swaps top from A to B. If meanwhile another thread
 * pops A, pops B and pushes A back, top is A again: the swap succeeds and
 * makes B, which that other thread still holds, the top of the free list.
 * The same item then ends up handed out twice or linked into the list
 * twice (a cycle).
 *
 * A worker allocates two items and frees them in an order picked by
 * stdbg_choose, while main allocates one. Checks: alloc poisons an item's
 * next pointer and tags the item with its owner, free checks the owner and
 * untags it, alloc checks that what it pops is free, and main finally walks
 * the free list (every item free, no cycle, every item there once). stdbg
 * must report a failed stdbg_assert, for instance: main reads top = A and
 * A->next = B; the worker pops A and B and pushes A back; main's swap
 * succeeds, B, still held, is on the list; the worker frees B, which links
 * B to itself. (Other schedules make a pop follow the poisoned pointer: a
 * crash.) Run natively, the program almost always succeeds. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbg.h>

#define ITEMS 4
#define FREE 0
#define POISON ((struct item *)(uintptr_t)0xdead)

struct item {
	struct item *volatile next;
	volatile int owner; /* FREE, or the id of the thread holding it */
};

static struct item items[ITEMS];
static struct item *volatile top;

static struct item *alloc(int me)
{
	for (;;) {
		stdbg_yield();
		struct item *old = top;
		if (old == NULL)
			return NULL;
		stdbg_yield();
		struct item *next = old->next;
		stdbg_yield();
		if (__sync_bool_compare_and_swap(&top, old, next)) {
			stdbg_assert(old->owner == FREE, "alloc returned an item that is in use");
			old->owner = me;
			old->next = POISON;
			return old;
		}
	}
}

static void release(struct item *it, int me)
{
	stdbg_assert(it->owner == me, "free of an item the thread does not hold");
	it->owner = FREE;
	for (;;) {
		stdbg_yield();
		struct item *old = top;
		it->next = old;
		stdbg_yield();
		if (__sync_bool_compare_and_swap(&top, old, it))
			return;
	}
}

static void *worker(void *arg)
{
	int me = (int)(intptr_t)arg;
	struct item *held[2];
	for (int i = 0; i < 2; i++) {
		held[i] = alloc(me);
		stdbg_assert(held[i] != NULL, "the pool has enough items for everybody");
	}
	int first = stdbg_choose(2); /* which item to free first */
	release(held[first], me);
	release(held[1 - first], me);
	return NULL;
}

int main(void)
{
	for (int i = 0; i < ITEMS; i++)
		items[i].next = i + 1 < ITEMS ? &items[i + 1] : NULL;
	top = &items[0];

	pthread_t t;
	pthread_create(&t, NULL, worker, (void *)2);
	struct item *mine = alloc(1); /* main takes an item for itself */
	stdbg_assert(mine != NULL, "the pool has enough items for everybody");
	pthread_join(t, NULL);
	release(mine, 1);

	int n = 0;
	for (struct item *it = top; it != NULL; it = it->next) {
		stdbg_assert(it != POISON, "the free list links to an allocated item");
		stdbg_assert(it->owner == FREE, "an item in use is on the free list");
		stdbg_assert(++n <= ITEMS, "the free list has a cycle");
	}
	stdbg_assert(n == ITEMS, "every item is back on the free list");
	printf("%d items free\n", n);
	return 0;
}
