/* The grader's test of writer starvation: two readers read again and again
 * for ever, with their read sections overlapping; a writer wants to write
 * once. The propositions want (the writer has asked) and wrote (it has
 * been inside) are checked with the formula G(want -> F wrote): on every
 * run that is fair to every thread, a writer that asks gets in. */
#include <pthread.h>
#include <stdbg.h>
#include "rwlock.c"

static struct rwlock l;
static int want, wrote;

static void *reader(void *arg)
{
	(void)arg;
	for (;;) {
		read_lock(&l);
		read_unlock(&l);
	}
	return NULL;
}

static void *writer(void *arg)
{
	(void)arg;
	want = 1;
	write_lock(&l);
	wrote = 1;
	write_unlock(&l);
	return NULL;
}

int main(void)
{
	pthread_t r[2], w;
	stdbg_prop("want", &want);
	stdbg_prop("wrote", &wrote);
	rw_init(&l);
	pthread_create(&r[0], NULL, reader, NULL);
	pthread_create(&r[1], NULL, reader, NULL);
	pthread_create(&w, NULL, writer, NULL);
	pthread_join(w, NULL);
	pthread_join(r[0], NULL); /* never returns: the readers read for ever */
	return 0;
}
