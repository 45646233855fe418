/* rt/reset.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns the reset of a reused child (STDBG_F_REUSE), the answer to RESET:
 * the other threads leave (or go back to the pool), the descriptors,
 * mappings and program break are checked and put back, and the memory
 * saved after the fork (rt/reuse.c) is written back before a jump to the
 * point after the fork.
 */

static void reuse_restore(void) __attribute__((noreturn));

/* reuse_reset answers RESET, on the thread that received it. */
static void reuse_reset(struct thr *me)
{
	struct thr *m = threads[1];
	if (!reuse_possible())
		reuse_refuse();
	for (int i = 2; i <= nthreads; i++) {
		struct thr *t = threads[i];
		if (t && t->lazy)
			pool_unassign(t); /* its pooled thread never left its loop */
		else if (t && t != me && !t->finished && !t->ctx) {
			/* (A context that does not run is simply not resumed.) */
			t->die = 1;
			give_turn(t);
		}
	}
	if (me != m) {
		m->die = 2;
		if (me->ctx && m->ctx) {
			ctx_switch(me, m); /* main resets the process; me is not resumed */
			fatal("a context left for a reset was resumed");
		}
		give_turn(m);
		if (me->pooled)
			pool_back(me);
		syscall(SYS_exit, 0);
		for (;;)
			;
	}
	reuse_restore();
}

/* reuse_unmap_new unmaps what was mapped since the snapshot and checks
 * that every mapping of the snapshot is still there as it was. */
static int reuse_unmap_new(void)
{
	struct keep *k = g_keep;
	int n = read_maps(k->scratch, REUSE_MAX_MAPS);
	if (n < 0)
		return 0;
	/* Known ranges: the snapshot's mappings and this library's own. */
	int nk = 0;
	for (int i = 0; i < k->nmaps; i++)
		if (k->maps[i].kind == MAP_PLAIN)
			k->known[nk++] = k->maps[i];
	k->known[nk++] = (struct region){(uintptr_t)k, (uintptr_t)k + sizeof *k, MAP_PLAIN, "own"};
	k->known[nk++] = (struct region){(uintptr_t)k->snap, (uintptr_t)k->snap + k->snap_len, MAP_PLAIN, "own"};
	/* Kept stacks and records, of this execution's threads and beyond. */
	for (int i = 2; i < MAXTHREADS; i++) {
		struct pooled *pe = &k->pool[i];
		if (i > nthreads && !pe->stack && !pe->alt && !pe->thr)
			break;
		if (pe->stack)
			k->known[nk++] = (struct region){(uintptr_t)pe->stack, (uintptr_t)pe->stack + pe->len, MAP_PLAIN, "own"};
		if (pe->alt)
			k->known[nk++] = (struct region){(uintptr_t)pe->alt, (uintptr_t)pe->alt + ALTSTACK_SIZE, MAP_PLAIN, "own"};
		if (pe->thr)
			k->known[nk++] = (struct region){(uintptr_t)pe->thr,
			                                 ((uintptr_t)pe->thr + sizeof(struct thr) + g_page - 1) & ~(uintptr_t)(g_page - 1),
			                                 MAP_PLAIN, "own"};
	}
	/* Sorted without qsort, which may call malloc: the heap is not to
	 * be used here, past the end of the break just restored. */
	for (int i = 1; i < nk; i++)
		for (int j = i; j > 0 && k->known[j].lo < k->known[j - 1].lo; j--) {
			struct region t = k->known[j];
			k->known[j] = k->known[j - 1];
			k->known[j - 1] = t;
		}
	/* Unmap the parts of current mappings no known range covers. */
	for (int i = 0; i < n; i++) {
		struct region *c = &k->scratch[i];
		if (c->kind != MAP_PLAIN)
			continue;
		uintptr_t at = c->lo;
		for (int j = 0; j < nk && at < c->hi; j++) {
			struct region *r = &k->known[j];
			if (r->hi <= at)
				continue;
			if (r->lo >= c->hi)
				break;
			if (r->lo > at)
				munmap((void *)at, r->lo - at);
			at = r->hi;
		}
		if (at < c->hi)
			munmap((void *)at, c->hi - at);
	}
	/* Every mapping of the snapshot must still be there, unchanged. */
	int j = 0;
	for (int i = 0; i < k->nmaps; i++) {
		struct region *s = &k->maps[i];
		if (s->kind != MAP_PLAIN)
			continue;
		uintptr_t at = s->lo;
		while (j < n && k->scratch[j].hi <= at)
			j++;
		for (int q = j; q < n && at < s->hi; q++) {
			struct region *c = &k->scratch[q];
			if (c->lo > at || memcmp(c->perms, s->perms, 4) != 0)
				return 0;
			at = c->hi;
		}
		if (at < s->hi)
			return 0;
	}
	return 1;
}

/* reuse_copy_back runs below the saved part of the main stack: it writes
 * the saved bytes back, the main stack's among them, and jumps to the point
 * after the fork. */
static void __attribute__((noreturn, noinline)) reuse_copy_back(void)
{
	struct keep *k = g_keep;
	int n = nthreads;
	for (int i = 0; i < k->nsaved; i++) {
		struct saved *sv = &k->saved[i];
		memcpy((void *)sv->lo, k->snap + sv->off, sv->hi - sv->lo);
	}
	/* The tables of threads are not saved: only main is left. */
	for (int i = 2; i <= n && i < MAXTHREADS; i++) {
		threads[i] = NULL;
		stdbg_thread_ostids[i] = 0;
	}
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &k->mask, NULL, 8);
	__builtin_longjmp(g_reset_jb, 1);
}

/* reuse_descend calls reuse_copy_back from below the saved part of the main
 * stack, which it overwrites. */
static void __attribute__((noreturn, noinline)) reuse_descend(void)
{
	volatile char here = 0;
	uintptr_t sp = (uintptr_t)&here;
	uintptr_t want = g_keep->stack_lo - 8192;
	if (sp > want) {
		volatile char *pad = __builtin_alloca(sp - want);
		pad[0] = here;
	}
	reuse_copy_back();
}

/* close_fds closes descriptors lo..hi. */
static void close_fds(int lo, unsigned hi)
{
	if (syscall(SYS_close_range, (unsigned)lo, hi, 0) != 0)
		reuse_refuse();
}

/* open_fds returns how many descriptors the process has open, or -1:
 * since Linux 6.2 the size /proc/self/fd reports. */
static int open_fds(void)
{
	struct stat st;
	int fd = g_keep->fd_dir;
	if ((fd >= 0 ? fstat(fd, &st) : stat("/proc/self/fd", &st)) != 0 || st.st_size <= 0)
		return -1;
	return (int)st.st_size;
}

/* fds_open reports whether every descriptor of the snapshot is open: one
 * poll of them all, which marks a closed one POLLNVAL (a system call costs
 * a microsecond or more on a virtual machine, where a call per descriptor
 * was a tenth of the work of a reset). */
static int fds_open(void)
{
	struct keep *k = g_keep;
	struct timespec now = {0, 0};
	if (k->nfds == 0)
		return 1;
	if (syscall(SYS_ppoll, k->fd_poll, (unsigned long)k->nfds, &now, NULL, 0) < 0)
		return 0;
	for (int i = 0; i < k->nfds; i++)
		if (k->fd_poll[i].revents & POLLNVAL)
			return 0;
	return 1;
}

/* close_others closes every descriptor but the snapshot's and the control
 * socket. Closing by ranges costs a step per slot of the descriptor table
 * (about 10 us with the control socket at 900), so a reset does it only
 * when open_fds says a descriptor is extra. */
static void close_others(void)
{
	struct keep *k = g_keep;
	int from = 0;
	for (int i = 0; i <= k->nfds; i++) {
		int fd = i < k->nfds ? k->fds[i] : INT_MAX;
		if (g_ctl >= from && g_ctl < fd) {
			if (g_ctl > from)
				close_fds(from, g_ctl - 1);
			from = g_ctl + 1;
		}
		if (fd > from)
			close_fds(from, fd == INT_MAX ? ~0U : (unsigned)fd - 1);
		from = fd == INT_MAX ? fd : fd + 1;
	}
}

/* count_tasks returns how many threads the process has, or -1. Linux
 * gives /proc/self/task a link count of 2 plus the threads: one stat
 * instead of reading the directory. The first call checks that against
 * the directory's entries; if they disagree, it reads the directory from
 * then on. */
static int count_tasks(void)
{
	struct keep *k = g_keep;
	if (k->task_stat >= 0) {
		struct stat st;
		int fd = k->task_dir;
		if ((fd >= 0 ? fstat(fd, &st) : stat("/proc/self/task", &st)) == 0 && st.st_nlink > 2) {
			int n = (int)st.st_nlink - 2;
			if (k->task_stat == 1)
				return n;
			int listed = list_numbers("/proc/self/task", NULL, 0);
			k->task_stat = listed == n ? 1 : -1;
			return listed;
		}
		k->task_stat = -1;
	}
	return list_numbers("/proc/self/task", NULL, 0);
}

/* reuse_clear_stacks gives the kept stacks of the program's threads back
 * to the kernel, so that each is zeros again, as in a freshly forked child,
 * where the stacks are mapped anew: a stateful search hashes the stacks,
 * and what one execution left below a frame (a local not yet written, the
 * padding between two) would otherwise make a state of the next execution
 * differ from the same state in a fresh child. The threads kept parked for
 * the program (the pool) keep theirs: their parking frames are there, and
 * each clears its stack below them before it runs a start routine
 * (pool_clear_stack). */
static void reuse_clear_stacks(void)
{
	struct keep *k = g_keep;
	int pooled = g_pool ? g_pool->n : 0;
	for (int i = 2 + pooled; i < MAXTHREADS; i++) {
		struct pooled *pe = &k->pool[i];
		if (i > nthreads && !pe->stack)
			break;
		if (pe->stack)
			madvise(pe->stack + g_page, pe->len - (size_t)g_page, MADV_DONTNEED);
	}
}

/* reuse_restore runs on main once every other thread was told to leave. */
static void reuse_restore(void)
{
	struct keep *k = g_keep;
	/* Wait until the kernel is done with every other thread (it clears
	 * the id in the descriptor), within a bound. */
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (int i = 2; i <= nthreads; i++) {
		struct thr *t = threads[i];
		if (!t || !t->have_pt || t->pooled)
			continue;
		volatile pid_t *tp = (volatile pid_t *)((uint8_t *)t->pt + k->tid_off);
		for (;;) {
			pid_t v = *tp;
			if (v <= 0) /* gone; glibc writes -1 once it joined it */
				break;
			struct timespec ts = {0, 10 * 1000000L}, now;
			syscall(SYS_futex, tp, FUTEX_WAIT, v, &ts, NULL, 0);
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec - start.tv_sec > 2)
				reuse_refuse();
		}
	}
	/* No thread stdbg does not know of may be left. The kernel clears a
	 * thread's id a little before the thread leaves the task list: give
	 * it the CPU a few times, then naps, within the same bound of time
	 * (a count of yields alone ran out on a busy machine, where the
	 * leaving thread waits for a CPU of its own). */
	int pooled = pool_wait_parked();
	if (pooled < 0)
		reuse_refuse();
	for (int tries = 0;; tries++) {
		int tasks = count_tasks();
		if (tasks == 1 + pooled)
			break;
		if (tasks < 0)
			reuse_refuse();
		if (tries < 200) {
			syscall(SYS_sched_yield);
			continue;
		}
		struct timespec now, nap = {0, 50 * 1000L};
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec > 2)
			reuse_refuse();
		syscall(SYS_nanosleep, &nap, NULL);
	}
	/* Descriptors: those of the snapshot must be open, others closed
	 * (this library's control socket aside). */
	if (!fds_open())
		reuse_refuse();
	if (open_fds() != k->nfds + 1)
		close_others();
	syscall(SYS_brk, k->brk);
	if (g_state_env)
		reuse_clear_stacks();
	/* Reading the mappings costs more than the rest of a reset: do it when
	 * the program mapped or unmapped memory through the library calls,
	 * and every REUSE_MAPS_EVERY resets for what glibc maps by itself. */
	if (k->maps_dirty || ++k->since_maps >= REUSE_MAPS_EVERY) {
		if (!reuse_unmap_new())
			reuse_refuse();
		k->maps_dirty = 0;
		k->since_maps = 0;
	}
	reuse_descend();
}

