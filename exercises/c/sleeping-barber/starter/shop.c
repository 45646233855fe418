/* The sleeping barber. A barbershop has one barber and CHAIRS chairs in
 * its waiting room. A customer who finds the waiting room full leaves at
 * once (visit returns 0); otherwise he sits down, wakes the barber if he
 * sleeps, and waits until the barber calls him (visit returns 1). The
 * barber sleeps while nobody waits; barber_next returns 1 when it has
 * called the next customer (in the order they sat down), and 0 once the
 * shop is closed and nobody waits any more. shop_close says that no
 * customer will come any more. Use one mutex and condition variables; no
 * busy waiting. */
#include <pthread.h>

#define CHAIRS 1 /* the waiting room */

struct shop {
	int waiting; /* customers in the waiting room */
	/* add what you need */
};

void shop_init(struct shop *s)
{
	s->waiting = 0;
}

int visit(struct shop *s)
{
	if (s->waiting == CHAIRS)
		return 0;
	s->waiting++;
	/* wait until the barber calls you */
	return 1;
}

int barber_next(struct shop *s)
{
	/* sleep while nobody waits and the shop is open */
	if (s->waiting == 0)
		return 0;
	s->waiting--;
	return 1;
}

void shop_close(struct shop *s)
{
	(void)s;
}
