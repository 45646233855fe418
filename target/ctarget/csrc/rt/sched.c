/* rt/sched.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns sched_yield and the sleeps, which are scheduling points (stdbg never
 * really sleeps).
 */

/* ------------------------------------------------------------------ */
/* Yield and sleep                                                     */

EXPORT int sched_yield(void)
{
	if (!active())
		return real_sched_yield();
	SCHED(K_YIELD, A_SCHED_YIELD, NULL, NULL, 0);
	return 0;
}

EXPORT unsigned sleep(unsigned s)
{
	if (!active())
		return real_sleep(s);
	SCHED(K_SLEEP, A_SLEEP, NULL, NULL, s);
	return 0;
}

EXPORT int usleep(useconds_t us)
{
	if (!active())
		return real_usleep(us);
	SCHED(K_SLEEP, A_USLEEP, NULL, NULL, us);
	return 0;
}

EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	if (!active())
		return real_nanosleep(req, rem);
	SCHED(K_SLEEP, A_NANOSLEEP, NULL, NULL, 0);
	if (rem)
		rem->tv_sec = rem->tv_nsec = 0;
	return 0;
}

EXPORT int clock_nanosleep(clockid_t c, int flags, const struct timespec *req, struct timespec *rem)
{
	if (!active())
		return real_clock_nanosleep(c, flags, req, rem);
	SCHED(K_SLEEP, A_CLOCK_NANOSLEEP, NULL, NULL, 0);
	if (rem)
		rem->tv_sec = rem->tv_nsec = 0;
	return 0;
}
