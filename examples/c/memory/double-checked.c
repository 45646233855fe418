/* Double-checked locking done wrong: the table is built once, under a
 * lock, but the fast path reads the pointer without it. A thread that sees
 * the pointer set may read a table another thread is still filling.
 *
 *   stdbg find examples/c/memory/double-checked.c
 *   stdbg find --races=false examples/c/memory/double-checked.c
 *
 * The builder publishes the pointer before it fills the table (the order
 * a compiler or CPU may choose when nothing forbids it): a reader can find
 * the table empty. The fix: an atomic pointer, stored with release after
 * the table is filled and loaded with acquire, or pthread_once. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

struct table {
	int ready;
	int squares[4];
};

static struct table *table;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static struct table *get(void)
{
	if (table == NULL) { /* the unlocked check */
		pthread_mutex_lock(&lock);
		if (table == NULL) {
			struct table *t = calloc(1, sizeof *t);
			table = t;
			for (int i = 0; i < 4; i++)
				t->squares[i] = i * i;
			t->ready = 1;
		}
		pthread_mutex_unlock(&lock);
	}
	return table;
}

static void *lookup(void *arg)
{
	(void)arg;
	struct table *t = get();
	assert(t->ready && "the table is filled before it is used");
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, lookup, NULL);
	pthread_create(&b, NULL, lookup, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	free(table);
	return 0;
}
