/* rt/c11.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns C11 threads (thrd_*, mtx_*, cnd_*, call_once), on glibc's internal
 * aliases of the pthread functions.
 */

/* ------------------------------------------------------------------ */
/* C11 threads. glibc implements them on internal aliases of the pthread
 * functions, which interposing pthread_* cannot reach, so they are
 * intercepted by name.                                                 */

static int c11_code(int64_t code)
{
	switch (code) {
	case 0:
		return thrd_success;
	case EBUSY:
		return thrd_busy;
	case ETIMEDOUT:
		return thrd_timedout;
	default:
		return thrd_error;
	}
}

struct c11_start {
	thrd_start_t fn;
	void *arg;
};

static void *c11_trampoline(void *p)
{
	struct c11_start s = *(struct c11_start *)p;
	free(p);
	return (void *)(intptr_t)s.fn(s.arg);
}

EXPORT int thrd_create(thrd_t *t, thrd_start_t fn, void *arg)
{
	if (!active())
		return real_thrd_create(t, fn, arg);
	struct c11_start *s = malloc(sizeof *s);
	if (!s)
		return thrd_nomem;
	s->fn = fn;
	s->arg = arg;
	pthread_t pt;
	do_create(&pt, NULL, c11_trampoline, s, A_THRD_CREATE, RA, 1, (void *)fn);
	*t = (thrd_t)pt;
	return thrd_success;
}

EXPORT int thrd_join(thrd_t t, int *res)
{
	if (!active())
		return real_thrd_join(t, res);
	void *rv = NULL;
	int rc = do_join((pthread_t)t, &rv, A_THRD_JOIN, RA);
	if (rc == 0 && res)
		*res = (int)(intptr_t)rv;
	return rc == 0 ? thrd_success : thrd_error;
}

EXPORT int thrd_detach(thrd_t t)
{
	if (!active())
		return real_thrd_detach(t);
	return do_detach((pthread_t)t, A_THRD_DETACH, RA) == 0 ? thrd_success : thrd_error;
}

EXPORT void thrd_exit(int res)
{
	if (active())
		finish(A_THRD_EXIT, (void *)(intptr_t)res, RA);
	real_thrd_exit(res);
}

EXPORT void thrd_yield(void)
{
	if (!active()) {
		real_thrd_yield();
		return;
	}
	SCHED(K_YIELD, A_THRD_YIELD, NULL, NULL, 0);
}

EXPORT int thrd_sleep(const struct timespec *d, struct timespec *rem)
{
	if (!active())
		return real_thrd_sleep(d, rem);
	SCHED(K_SLEEP, A_THRD_SLEEP, NULL, NULL, 0);
	if (rem)
		rem->tv_sec = rem->tv_nsec = 0;
	return 0;
}

static int c11_mutex_type(int type)
{
	return (type & mtx_recursive) ? 1 : 0;
}

/* glibc's mtx_t holds a pthread_mutex_t; reading its kind works for both. */
static int mtx_kind(mtx_t *m)
{
	return mutex_type((const pthread_mutex_t *)m);
}

EXPORT int mtx_init(mtx_t *m, int type)
{
	int rc = real_mtx_init(m, type);
	if (rc != thrd_success || !active())
		return rc;
	return c11_code(SCHED(K_MUTEX_INIT, A_MTX_INIT, m, NULL, c11_mutex_type(type)));
}

EXPORT int mtx_lock(mtx_t *m)
{
	if (!active())
		return real_mtx_lock(m);
	return c11_code(SCHED(K_MUTEX_LOCK, A_MTX_LOCK, m, NULL, mtx_kind(m)));
}

EXPORT int mtx_trylock(mtx_t *m)
{
	if (!active())
		return real_mtx_trylock(m);
	return c11_code(SCHED(K_MUTEX_TRYLOCK, A_MTX_TRYLOCK, m, NULL, mtx_kind(m)));
}

EXPORT int mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict ts)
{
	if (!active())
		return real_mtx_timedlock(m, ts);
	return c11_code(SCHED(K_MUTEX_TIMEDLOCK, A_MTX_TIMEDLOCK, m, NULL, mtx_kind(m)));
}

EXPORT int mtx_unlock(mtx_t *m)
{
	if (!active())
		return real_mtx_unlock(m);
	return c11_code(SCHED(K_MUTEX_UNLOCK, A_MTX_UNLOCK, m, NULL, mtx_kind(m)));
}

EXPORT void mtx_destroy(mtx_t *m)
{
	if (!active()) {
		real_mtx_destroy(m);
		return;
	}
	SCHED(K_MUTEX_DESTROY, A_MTX_DESTROY, m, NULL, mtx_kind(m));
}

EXPORT int cnd_init(cnd_t *c)
{
	int rc = real_cnd_init(c);
	if (rc != thrd_success || !active())
		return rc;
	return c11_code(SCHED(K_COND_INIT, A_CND_INIT, c, NULL, 0));
}

EXPORT int cnd_wait(cnd_t *c, mtx_t *m)
{
	if (!active())
		return real_cnd_wait(c, m);
	return c11_code(cond_wait((pthread_cond_t *)c, (pthread_mutex_t *)m, 0, A_CND_WAIT, RA));
}

EXPORT int cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m, const struct timespec *restrict ts)
{
	if (!active())
		return real_cnd_timedwait(c, m, ts);
	return c11_code(cond_wait((pthread_cond_t *)c, (pthread_mutex_t *)m, 1, A_CND_TIMEDWAIT, RA));
}

EXPORT int cnd_signal(cnd_t *c)
{
	if (!active())
		return real_cnd_signal(c);
	return c11_code(SCHED(K_COND_SIGNAL, A_CND_SIGNAL, c, NULL, 0));
}

EXPORT int cnd_broadcast(cnd_t *c)
{
	if (!active())
		return real_cnd_broadcast(c);
	return c11_code(SCHED(K_COND_BROADCAST, A_CND_BROADCAST, c, NULL, 0));
}

EXPORT void cnd_destroy(cnd_t *c)
{
	if (!active()) {
		real_cnd_destroy(c);
		return;
	}
	SCHED(K_COND_DESTROY, A_CND_DESTROY, c, NULL, 0);
}

EXPORT void call_once(once_flag *o, void (*fn)(void))
{
	if (!active()) {
		real_call_once(o, fn);
		return;
	}
	do_once((int *)o, fn, A_CALL_ONCE, RA);
}
