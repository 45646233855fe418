/* rt/rwlock.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns reader/writer locks.
 */

/* ------------------------------------------------------------------ */
/* Reader/writer locks                                                 */

EXPORT int pthread_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *a)
{
	int rc = real_pthread_rwlock_init(l, a);
	if (rc != 0 || !active())
		return rc;
	return (int)SCHED(K_RWLOCK_INIT, A_PTHREAD_RWLOCK_INIT, l, NULL, 0);
}

#define RWFN(name, kind, api, params, args)                                                                 \
	EXPORT int pthread_rwlock_##name params                                                             \
	{                                                                                                   \
		if (!active())                                                                              \
			return real_pthread_rwlock_##name args;                                             \
		return (int)SCHED(kind, api, l, NULL, 0);                                                   \
	}

RWFN(rdlock, K_RWLOCK_RDLOCK, A_PTHREAD_RWLOCK_RDLOCK, (pthread_rwlock_t * l), (l))
RWFN(wrlock, K_RWLOCK_WRLOCK, A_PTHREAD_RWLOCK_WRLOCK, (pthread_rwlock_t * l), (l))
RWFN(tryrdlock, K_RWLOCK_TRYRDLOCK, A_PTHREAD_RWLOCK_TRYRDLOCK, (pthread_rwlock_t * l), (l))
RWFN(trywrlock, K_RWLOCK_TRYWRLOCK, A_PTHREAD_RWLOCK_TRYWRLOCK, (pthread_rwlock_t * l), (l))
RWFN(timedrdlock, K_RWLOCK_TIMEDRDLOCK, A_PTHREAD_RWLOCK_TIMEDRDLOCK,
     (pthread_rwlock_t * l, const struct timespec *ts), (l, ts))
RWFN(timedwrlock, K_RWLOCK_TIMEDWRLOCK, A_PTHREAD_RWLOCK_TIMEDWRLOCK,
     (pthread_rwlock_t * l, const struct timespec *ts), (l, ts))
RWFN(clockrdlock, K_RWLOCK_TIMEDRDLOCK, A_PTHREAD_RWLOCK_CLOCKRDLOCK,
     (pthread_rwlock_t * l, clockid_t c, const struct timespec *ts), (l, c, ts))
RWFN(clockwrlock, K_RWLOCK_TIMEDWRLOCK, A_PTHREAD_RWLOCK_CLOCKWRLOCK,
     (pthread_rwlock_t * l, clockid_t c, const struct timespec *ts), (l, c, ts))
RWFN(unlock, K_RWLOCK_UNLOCK, A_PTHREAD_RWLOCK_UNLOCK, (pthread_rwlock_t * l), (l))
RWFN(destroy, K_RWLOCK_DESTROY, A_PTHREAD_RWLOCK_DESTROY, (pthread_rwlock_t * l), (l))
