/* rt/cond.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns condition variables: wait (with spurious wake-ups as the checker
 * decides), timed wait, signal, broadcast, init and destroy.
 */

/* ------------------------------------------------------------------ */
/* Condition variables                                                 */

/* The checker's answer to a wait that wakes up spuriously at once, still
 * holding its mutex (syncmodel.SpuriousReturn): the wait returns 0. */
#define SPURIOUS_RETURN (-2)

static int cond_wait(pthread_cond_t *c, pthread_mutex_t *m, int timed, uint16_t api, void *ra)
{
	int64_t code = sched(K_COND_WAIT, api, c, m, mutex_type(m), ra);
	if (code == SPURIOUS_RETURN)
		return 0;
	if (code != 0)
		return (int)code;
	return (int)sched(K_COND_REACQUIRE, api, c, m, timed, ra);
}

EXPORT int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a)
{
	int rc = real_pthread_cond_init(c, a);
	if (rc != 0 || !active())
		return rc;
	return (int)SCHED(K_COND_INIT, A_PTHREAD_COND_INIT, c, NULL, 0);
}

EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	if (!active())
		return real_pthread_cond_wait(c, m);
	return cond_wait(c, m, 0, A_PTHREAD_COND_WAIT, RA);
}

EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *ts)
{
	if (!active())
		return real_pthread_cond_timedwait(c, m, ts);
	return cond_wait(c, m, 1, A_PTHREAD_COND_TIMEDWAIT, RA);
}

EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t k, const struct timespec *ts)
{
	if (!active())
		return real_pthread_cond_clockwait(c, m, k, ts);
	return cond_wait(c, m, 1, A_PTHREAD_COND_CLOCKWAIT, RA);
}

EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
	if (!active())
		return real_pthread_cond_signal(c);
	return (int)SCHED(K_COND_SIGNAL, A_PTHREAD_COND_SIGNAL, c, NULL, 0);
}

EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
	if (!active())
		return real_pthread_cond_broadcast(c);
	return (int)SCHED(K_COND_BROADCAST, A_PTHREAD_COND_BROADCAST, c, NULL, 0);
}

EXPORT int pthread_cond_destroy(pthread_cond_t *c)
{
	if (!active())
		return real_pthread_cond_destroy(c);
	return (int)SCHED(K_COND_DESTROY, A_PTHREAD_COND_DESTROY, c, NULL, 0);
}
