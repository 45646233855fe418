/* rt/threads.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns POSIX threads: creation (the new thread's start is a scheduling point
 * of its own), join, detach, exit and the thread's return.
 */

/* ------------------------------------------------------------------ */
/* Threads                                                             */

/* reap_finished really joins the threads the program has joined but whose
 * kernel thread was still leaving at the time. Threads the program has not
 * joined are never reaped behind its back: glibc would reuse their
 * pthread_t for a new thread, and the program's later join would name the
 * wrong thread. */
static void reap_finished(void)
{
	for (int i = 2; i <= nthreads; i++) {
		struct thr *t = threads[i];
		if (t && t->joined && !t->reaped && t->have_pt && !t->pooled) {
			if (real_pthread_tryjoin_np(t->pt, NULL) == 0)
				t->reaped = 1;
		}
	}
}

/* finish ends the calling thread's life as far as stdbg is concerned: the
 * scheduling point before the exit, then the hand-over to the next thread. */
static void finish(uint16_t api, void *retval, void *ra)
{
	struct thr *me = self;
	me->retval = retval;
	sched(K_THREAD_EXIT, api, NULL, NULL, 0, ra);
	me->finished = 1;
	if (!g_replay) {
		/* Every hand-over carries a message, even this one. */
		uint32_t tid = (uint32_t)me->tid;
		up_hdr(M_DONE, 4);
		up_put(&tid, 4);
	}
	handoff(me);
}

/* call_start runs the user's start routine. For state hashing the
 * thread's stack ends here: above are this library's and glibc's start
 * frames and the thread's descriptor and TLS, which hold its kernel id and
 * register values that differ between executions. */
static __attribute__((noinline)) void *call_start(struct thr *t)
{
	volatile uintptr_t marker = 0;
	t->stack_hi = (uintptr_t)&marker;
	t->spin_hi = (uintptr_t)&marker;
	return t->start(t->arg);
}

static void *thread_start(void *p)
{
	struct thr *t = p;
	self = t;
	/* A pooled thread's kernel thread is known already (pool_take: its
	 * slot's, or the runner's for a context), and a system call is dear. */
	if (!t->pooled) {
		t->ostid = (pid_t)syscall(SYS_gettid);
		if (t->tid < MAXTHREADS)
			stdbg_thread_ostids[t->tid] = t->ostid;
	}
	/* (A context shares the main kernel thread's signal stack: its own,
	 * mapped at its creation, stays unused.) */
	if (!t->ctx)
		set_altstack(t);
	/* The thread's start is a scheduling point of its own: its creator
	 * may go on first, as it may in a real run. A pooled thread's start
	 * was reported by its creator, and it runs because it has the turn. */
	if (t->pooled && !t->first)
		stdbg_current_tid = t->tid;
	else if (active())
		sched(K_THREAD_START, A_START, NULL, NULL, 0, (char *)t->where + 1);
	void *rv = call_start(t);
	if (active())
		finish(A_RETURN, rv, (char *)t->where + 1);
	return rv;
}

static int do_create(pthread_t *pt, const pthread_attr_t *attr, void *(*fn)(void *), void *arg, uint16_t api,
                     void *ra, int c11, void *where)
{
	int detached = 0;
	if (attr) {
		int ds = PTHREAD_CREATE_JOINABLE;
		pthread_attr_getdetachstate(attr, &ds);
		detached = ds == PTHREAD_CREATE_DETACHED;
	}
	int64_t tid = sched(K_THREAD_CREATE, api, NULL, NULL, detached, ra);
	if (detached)
		reuse_refuse_next();
	reap_finished();
	struct thr *t = thr_new((int)tid);
	t->start = fn;
	t->arg = arg;
	t->c11 = c11;
	t->where = where;
	pthread_attr_t kept;
	int rc = 0;
	if (attr || !pool_take(t, pt)) {
		/* (A pooled thread lives on the kept stack of its id.) */
		int kept_stack = !pool_has((int)tid) && reuse_attr(&kept, attr, (int)tid);
		rc = real_pthread_create(pt, kept_stack ? &kept : attr, thread_start, t);
	}
	if (rc != 0) {
		char buf[96];
		snprintf(buf, sizeof buf, "pthread_create failed: %s", strerror(rc));
		fatal(buf);
	}
	t->pt = *pt;
	t->have_pt = 1;
	if (t->lazy) {
		/* Its first report is its start, which it has not begun:
		 * report it here, as it would. */
		t->first = 0;
		/* What the thread would map before its start, mapped now:
		 * the program sees the same memory as with a new thread. */
		reuse_altstack(t->tid);
		put_pending(t, K_THREAD_START, A_START, NULL, NULL, 0, (char *)where + 1);
		return 0;
	}
	/* The new thread runs to its first scheduling point within this
	 * transition; wait for it to report. */
	struct timespec ts = {0, LIFELINE_MS * 1000000L};
	while (!__atomic_load_n(&t->started, __ATOMIC_ACQUIRE)) {
		sys_futex(&t->started, FUTEX_WAIT_PRIVATE, 0, &ts);
		if (!__atomic_load_n(&t->started, __ATOMIC_ACQUIRE))
			lifeline();
	}
	return 0;
}

EXPORT int pthread_create(pthread_t *pt, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	if (!active())
		return real_pthread_create(pt, attr, fn, arg);
	return do_create(pt, attr, fn, arg, A_PTHREAD_CREATE, RA, 0, (void *)fn);
}

static int do_join(pthread_t pt, void **ret, uint16_t api, void *ra)
{
	struct thr *t = thr_by_pt(pt);
	int64_t target = t ? t->tid : (pthread_equal(pt, pthread_self()) ? self->tid : -1);
	int64_t code = sched(K_THREAD_JOIN, api, NULL, NULL, target, ra);
	if (code != 0)
		return (int)code;
	if (ret && t)
		*ret = t->retval;
	if (t)
		t->joined = 1;
	if (t && !t->reaped) {
		if (t->pooled || real_pthread_tryjoin_np(t->pt, NULL) == 0)
			t->reaped = 1;
	}
	return 0;
}

EXPORT int pthread_join(pthread_t pt, void **ret)
{
	if (!active())
		return real_pthread_join(pt, ret);
	return do_join(pt, ret, A_PTHREAD_JOIN, RA);
}

static int do_detach(pthread_t pt, uint16_t api, void *ra)
{
	struct thr *t = thr_by_pt(pt);
	int64_t target = t ? t->tid : -1;
	int64_t code = sched(K_THREAD_DETACH, api, NULL, NULL, target, ra);
	if (code != 0)
		return (int)code;
	reuse_refuse_next();
	if (t && !t->reaped) {
		t->reaped = 1;
		if (!t->pooled)
			real_pthread_detach(t->pt);
	}
	return 0;
}

EXPORT int pthread_detach(pthread_t pt)
{
	if (!active())
		return real_pthread_detach(pt);
	return do_detach(pt, A_PTHREAD_DETACH, RA);
}

EXPORT void pthread_exit(void *rv)
{
	if (self && self->pooled && g_pool) {
		/* It leaves for real: the pool cannot keep it. */
		g_pool->slot[self->tid - 2].dead = 1;
		reuse_refuse_next();
	}
	if (active())
		finish(A_PTHREAD_EXIT, rv, RA);
	real_pthread_exit(rv);
}

/* pthread_self and pthread_equal need no interception: stdbg keeps the
 * real pthread_t of every thread, so the real functions stay correct. */
