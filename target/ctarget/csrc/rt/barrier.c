/* rt/barrier.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns barriers, spin locks and pthread_once.
 */

/* ------------------------------------------------------------------ */
/* Barriers, spin locks, once                                          */

EXPORT int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *a, unsigned count)
{
	if (!active())
		return real_pthread_barrier_init(b, a, count);
	return (int)SCHED(K_BARRIER_INIT, A_PTHREAD_BARRIER_INIT, b, NULL, count);
}

EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
	if (!active())
		return real_pthread_barrier_wait(b);
	void *ra = RA;
	int64_t code = sched(K_BARRIER_WAIT, A_PTHREAD_BARRIER_WAIT, b, NULL, 0, ra);
	if (code == -1)
		return PTHREAD_BARRIER_SERIAL_THREAD;
	if (code != 0)
		return (int)code;
	return (int)sched(K_BARRIER_LEAVE, A_PTHREAD_BARRIER_WAIT, b, NULL, 0, ra);
}

EXPORT int pthread_barrier_destroy(pthread_barrier_t *b)
{
	if (!active())
		return real_pthread_barrier_destroy(b);
	return (int)SCHED(K_BARRIER_DESTROY, A_PTHREAD_BARRIER_DESTROY, b, NULL, 0);
}

#define SPINFN(name, kind, api)                                                                             \
	EXPORT int pthread_spin_##name(pthread_spinlock_t *l)                                               \
	{                                                                                                   \
		if (!active())                                                                              \
			return real_pthread_spin_##name(l);                                                 \
		return (int)SCHED(kind, api, (const void *)l, NULL, 0);                                     \
	}

SPINFN(lock, K_SPIN_LOCK, A_PTHREAD_SPIN_LOCK)
SPINFN(trylock, K_SPIN_TRYLOCK, A_PTHREAD_SPIN_TRYLOCK)
SPINFN(unlock, K_SPIN_UNLOCK, A_PTHREAD_SPIN_UNLOCK)
SPINFN(destroy, K_SPIN_DESTROY, A_PTHREAD_SPIN_DESTROY)

EXPORT int pthread_spin_init(pthread_spinlock_t *l, int pshared)
{
	int rc = real_pthread_spin_init(l, pshared);
	if (rc != 0 || !active())
		return rc;
	return (int)SCHED(K_SPIN_INIT, A_PTHREAD_SPIN_INIT, (const void *)l, NULL, 0);
}

/* glibc marks a finished once control with this bit; a control completed
 * by a real call before stdbg took over (the unwinder's, libstdc++'s) is
 * left alone. */
#define ONCE_DONE 2
/* A control completed under the checker carries this bit as well (glibc
 * looks at ONCE_DONE only): a later call on it is still a scheduling
 * point, which the model answers "already done". Without it the later
 * call would be invisible, and a search would never try it before the
 * call that ran the initialiser, whose initialiser it would have run. */
#define ONCE_OURS (1 << 30)

static void do_once(int *o, void (*fn)(void), uint16_t api, void *ra)
{
	int v = __atomic_load_n(o, __ATOMIC_ACQUIRE);
	if ((v & ONCE_DONE) && !(v & ONCE_OURS))
		return;
	if (sched(K_ONCE_BEGIN, api, o, NULL, 0, ra) == 1) {
		fn();
		sched(K_ONCE_END, api, o, NULL, 0, ra);
		__atomic_store_n(o, ONCE_DONE | ONCE_OURS, __ATOMIC_RELEASE);
	}
}

EXPORT int pthread_once(pthread_once_t *o, void (*fn)(void))
{
	if (!active())
		return real_pthread_once(o, fn);
	do_once((int *)o, fn, A_PTHREAD_ONCE, RA);
	return 0;
}
