/* rt/sem.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns unnamed semaphores: init, wait, trywait, timedwait, post, getvalue,
 * destroy.
 */

/* ------------------------------------------------------------------ */
/* Semaphores (unnamed)                                                */

static int sem_result(int64_t code)
{
	if (code == 0)
		return 0;
	errno = (int)code;
	return -1;
}

EXPORT int sem_init(sem_t *s, int pshared, unsigned value)
{
	int rc = real_sem_init(s, pshared, value);
	if (rc != 0 || !active())
		return rc;
	return sem_result(SCHED(K_SEM_INIT, A_SEM_INIT, s, NULL, value));
}

EXPORT int sem_wait(sem_t *s)
{
	if (!active())
		return real_sem_wait(s);
	return sem_result(SCHED(K_SEM_WAIT, A_SEM_WAIT, s, NULL, 0));
}

EXPORT int sem_trywait(sem_t *s)
{
	if (!active())
		return real_sem_trywait(s);
	return sem_result(SCHED(K_SEM_TRYWAIT, A_SEM_TRYWAIT, s, NULL, 0));
}

EXPORT int sem_timedwait(sem_t *s, const struct timespec *ts)
{
	if (!active())
		return real_sem_timedwait(s, ts);
	return sem_result(SCHED(K_SEM_TIMEDWAIT, A_SEM_TIMEDWAIT, s, NULL, 0));
}

EXPORT int sem_clockwait(sem_t *s, clockid_t c, const struct timespec *ts)
{
	if (!active())
		return real_sem_clockwait(s, c, ts);
	return sem_result(SCHED(K_SEM_TIMEDWAIT, A_SEM_CLOCKWAIT, s, NULL, 0));
}

EXPORT int sem_post(sem_t *s)
{
	if (!active())
		return real_sem_post(s);
	return sem_result(SCHED(K_SEM_POST, A_SEM_POST, s, NULL, 0));
}

EXPORT int sem_getvalue(sem_t *s, int *v)
{
	if (!active())
		return real_sem_getvalue(s, v);
	*v = (int)SCHED(K_SEM_GETVALUE, A_SEM_GETVALUE, s, NULL, 0);
	return 0;
}

EXPORT int sem_destroy(sem_t *s)
{
	if (!active())
		return real_sem_destroy(s);
	return sem_result(SCHED(K_SEM_DESTROY, A_SEM_DESTROY, s, NULL, 0));
}
