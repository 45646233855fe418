/* rt/mutex.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns mutexes: init, lock, trylock, timedlock, unlock, destroy.
 */

/* ------------------------------------------------------------------ */
/* Mutexes                                                             */

/* mutex_type reads the type glibc stored in the mutex (static
 * initialisers and pthread_mutex_init both set it); stdbg never changes
 * the real mutex, so the field stays as the program set it. */
static int mutex_type(const pthread_mutex_t *m)
{
	return m->__data.__kind & 3;
}

EXPORT int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
	int rc = real_pthread_mutex_init(m, a);
	if (rc != 0 || !active())
		return rc;
	return (int)SCHED(K_MUTEX_INIT, A_PTHREAD_MUTEX_INIT, m, NULL, mutex_type(m));
}

EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	if (!active())
		return real_pthread_mutex_lock(m);
	return (int)SCHED(K_MUTEX_LOCK, A_PTHREAD_MUTEX_LOCK, m, NULL, mutex_type(m));
}

EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
	if (!active())
		return real_pthread_mutex_trylock(m);
	return (int)SCHED(K_MUTEX_TRYLOCK, A_PTHREAD_MUTEX_TRYLOCK, m, NULL, mutex_type(m));
}

EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *ts)
{
	if (!active())
		return real_pthread_mutex_timedlock(m, ts);
	return (int)SCHED(K_MUTEX_TIMEDLOCK, A_PTHREAD_MUTEX_TIMEDLOCK, m, NULL, mutex_type(m));
}

EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t c, const struct timespec *ts)
{
	if (!active())
		return real_pthread_mutex_clocklock(m, c, ts);
	return (int)SCHED(K_MUTEX_TIMEDLOCK, A_PTHREAD_MUTEX_CLOCKLOCK, m, NULL, mutex_type(m));
}

EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	if (!active())
		return real_pthread_mutex_unlock(m);
	return (int)SCHED(K_MUTEX_UNLOCK, A_PTHREAD_MUTEX_UNLOCK, m, NULL, mutex_type(m));
}

EXPORT int pthread_mutex_destroy(pthread_mutex_t *m)
{
	if (!active())
		return real_pthread_mutex_destroy(m);
	return (int)SCHED(K_MUTEX_DESTROY, A_PTHREAD_MUTEX_DESTROY, m, NULL, mutex_type(m));
}
