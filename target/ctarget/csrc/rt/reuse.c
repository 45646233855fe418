/* rt/reuse.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns process reuse: a child that finished an execution makes its
 * threads leave, undoes what the execution did to its memory, descriptors
 * and mappings, and serves the next execution itself. Here: the snapshot
 * taken after the fork, what a reset keeps (stacks, thread records), the
 * calls that taint a child; the reset itself is rt/reset.c.
 */

/* ------------------------------------------------------------------ */
/* Reuse: one child serves many executions                             */

/* With STDBG_F_REUSE a child does not die when the checker is done with an
 * execution. The checker answers RESET instead, and the child puts itself
 * back into the state it had just after the fork, then reports the first
 * scheduling point again as the next execution. That saves the fork, the
 * teardown of the old process and the page faults of the new one: most of
 * the cost of a short execution.
 *
 * Right after the fork the child saves every private writable mapping (the
 * data of the program and its libraries, this library's included, the
 * heap, the used part of the main stack, anonymous mappings), its signal
 * mask, its descriptors and its program break. A reset makes every thread
 * but main leave with a bare exit system call, waits until the kernel has
 * cleared their thread ids, closes descriptors opened since, unmaps
 * mappings made since, restores the break and the saved bytes, and jumps
 * back to the point after the fork. Threads run on stacks this library
 * keeps from one execution to the next, so glibc neither maps nor caches
 * stacks, and a thread keeps its stack address in every execution.
 *
 * The child refuses a reset, and leaves so that the next execution is a
 * fresh fork, when it cannot put things back: the program changed a kernel
 * setting a reset does not restore (signal handlers, timers, the working
 * directory, loaded libraries, child processes: see the interposers below),
 * closed a descriptor it had, removed or changed a mapping it had, main
 * already left, or a thread stdbg did not create is running. */

#define REUSE_MAX_MAPS 2048
#define REUSE_MAPS_BUF (256 * 1024)
#define REUSE_MAX_SAVED (8u << 20) /* beyond that a fork is cheaper */
#define REUSE_MAX_FDS 256
#define REUSE_REFUSED 75 /* exit status of a child that cannot reset */
#define REUSE_MAPS_EVERY 64
/* Kept stacks: thread id i at KEPT_STACKS_BASE + i * KEPT_STACK_SLOT. */
#define KEPT_STACKS_BASE ((uintptr_t)0x5f0000000000)
#define KEPT_STACK_SLOT ((uintptr_t)64 << 20)

enum { MAP_PLAIN, MAP_STACK_MAIN, MAP_SPECIAL };

struct region {
	uintptr_t lo, hi;
	int kind;
	char perms[4];
};

struct saved {
	uintptr_t lo, hi;
	size_t off; /* in the snapshot */
};

struct pooled {
	uint8_t *stack; /* mapping: guard page, then the stack */
	size_t len;
	void *alt; /* alternate signal stack */
	struct thr *thr;
};

struct keep {
	int ok;         /* a reset is possible */
	int tainted;    /* the program did something a reset cannot undo */
	int maps_dirty; /* the program may have changed its mappings */
	int since_maps; /* resets since the mappings were last checked */
	int task_stat;  /* count_tasks: 1 the link count agrees, -1 it does not */
	int task_dir;   /* /proc/self/task, opened to fstat it (count_tasks), or -1 */
	int fd_dir;     /* /proc/self/fd, the same (open_fds), or -1 */
	size_t tid_off;
	size_t def_stack;
	uintptr_t brk;
	sigset_t mask;
	int fds[REUSE_MAX_FDS];
	int nfds;
	struct pollfd fd_poll[REUSE_MAX_FDS]; /* fds, for fds_open */
	struct region maps[REUSE_MAX_MAPS];
	int nmaps;
	struct saved saved[REUSE_MAX_MAPS];
	int nsaved;
	uint8_t *snap;
	size_t snap_len;
	struct pooled pool[MAXTHREADS];
	struct region scratch[REUSE_MAX_MAPS]; /* mappings read at a reset */
	struct region known[REUSE_MAX_MAPS + 3 * MAXTHREADS + 8];
	uintptr_t stack_lo; /* the saved part of the main stack starts here */
	struct pool tpool;  /* threads kept parked for the program (rt/pool.c) */
	char maps_buf[REUSE_MAPS_BUF];
};

/* Not saved: a reset leaves it as it is. */
static struct keep *g_keep;
static long g_page;

/* read_maps reads /proc/self/maps into out; returns the count or -1. */
static int read_maps(struct region *out, int max)
{
	struct keep *k = g_keep;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t len = 0;
	for (;;) {
		ssize_t n = read(fd, k->maps_buf + len, sizeof k->maps_buf - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == sizeof k->maps_buf - 1) {
			close(fd);
			return -1;
		}
	}
	close(fd);
	k->maps_buf[len] = 0;
	int n = 0;
	char *p = k->maps_buf;
	while (*p) {
		char *nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		if (n == max)
			return -1;
		struct region *r = &out[n];
		char *q;
		r->lo = strtoull(p, &q, 16);
		if (*q != '-')
			return -1;
		r->hi = strtoull(q + 1, &q, 16);
		while (*q == ' ')
			q++;
		memcpy(r->perms, q, 4);
		/* The path, if any, is the sixth field. */
		char *f = q;
		for (int i = 0; i < 4 && f < nl; i++) {
			while (f < nl && *f != ' ')
				f++;
			while (f < nl && *f == ' ')
				f++;
		}
		r->kind = MAP_PLAIN;
		if (f < nl && *f == '[') {
			if (strncmp(f, "[stack]", 7) == 0)
				r->kind = MAP_STACK_MAIN;
			else if (strncmp(f, "[heap]", 6) != 0)
				r->kind = MAP_SPECIAL; /* vdso, vvar, vsyscall */
		}
		n++;
		p = *nl ? nl + 1 : nl;
	}
	return n;
}

/* find_tid_off finds where glibc keeps a thread's kernel id in its
 * descriptor, by looking for this thread's id in its own. */
static int find_tid_off(size_t *off)
{
	const uint8_t *pd = (const uint8_t *)pthread_self();
	pid_t tid = (pid_t)syscall(SYS_gettid);
	for (size_t o = 0; o + sizeof(pid_t) <= 2048; o += sizeof(pid_t)) {
		pid_t v;
		memcpy(&v, pd + o, sizeof v);
		if (v == tid) {
			*off = o;
			return 1;
		}
	}
	return 0;
}

/* list_numbers lists the entries of a /proc directory named by numbers
 * (descriptors, threads) into out, if not NULL, and returns their count, or
 * -1 when it cannot (or more than max when out is set). */
static int list_numbers(const char *dir, int *out, int max)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	int n = 0;
	char buf[4096];
	for (;;) {
		long got = syscall(SYS_getdents64, dfd, buf, sizeof buf);
		if (got <= 0) {
			if (got < 0)
				n = -1;
			break;
		}
		for (long pos = 0; pos < got;) {
			struct {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *d = (void *)(buf + pos);
			pos += d->reclen;
			if (d->name[0] < '0' || d->name[0] > '9')
				continue;
			int num = atoi(d->name);
			if (out && (num == dfd || num == g_ctl))
				continue; /* the listing's own descriptor, the control socket */
			if (out) {
				if (n == max) {
					close(dfd);
					return -1;
				}
				out[n] = num;
			}
			n++;
		}
	}
	close(dfd);
	return n;
}

/* proc_dir opens a directory of /proc to fstat it, close-on-exec and at
 * 900 or above like the control socket; -1 if it cannot. (Not O_PATH:
 * poll, which a reset asks whether the snapshot's descriptors are open,
 * takes a descriptor opened O_PATH for a closed one.) */
static int proc_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int high = fcntl(fd, F_DUPFD_CLOEXEC, 900);
	close(fd);
	return high;
}

static void boot_range(uintptr_t *lo, uintptr_t *hi);

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

/* reuse_snapshot saves the child's state right after the fork. It must be
 * the last thing that changes memory before the execution starts: what it
 * saves is what every later execution starts from. */
static __attribute__((noinline)) void reuse_snapshot(void)
{
	volatile char here = 0;
	g_page = sysconf(_SC_PAGESIZE);
	struct keep *k = mmap(NULL, sizeof *k, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (k == MAP_FAILED)
		return;
	g_keep = k;
	pthread_attr_t a;
	if (!find_tid_off(&k->tid_off) || pthread_getattr_default_np(&a) != 0)
		goto fail;
	pthread_attr_getstacksize(&a, &k->def_stack);
	pthread_attr_destroy(&a);
	/* malloc maps memory of its own for big blocks and for the arenas of
	 * new threads, and glibc does so out of this library's sight: keep
	 * every block in the main heap, which the program break restores. */
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_MMAP_MAX, 0);
	if (g_pool_want > 0) {
		k->ok = 1; /* for the kept stacks */
		pool_create(&k->tpool, g_pool_want);
		k->ok = 0;
	}
	/* Counting threads and descriptors at a reset: an fstat of these is
	 * a quarter of a stat of their paths. Out of the program's way, and
	 * in the snapshot's list of descriptors, so a reset keeps them. */
	k->task_dir = proc_dir("/proc/self/task");
	k->fd_dir = proc_dir("/proc/self/fd");
	k->nfds = list_numbers("/proc/self/fd", k->fds, REUSE_MAX_FDS);
	if (k->nfds < 0)
		goto fail;
	qsort(k->fds, (size_t)k->nfds, sizeof k->fds[0], int_cmp);
	for (int i = 0; i < k->nfds; i++)
		k->fd_poll[i] = (struct pollfd){.fd = k->fds[i]};
	k->brk = (uintptr_t)syscall(SYS_brk, 0);
	pthread_sigmask(SIG_BLOCK, NULL, &k->mask);
	k->nmaps = read_maps(k->maps, REUSE_MAX_MAPS);
	if (k->nmaps < 0)
		goto fail;
	uintptr_t sp = ((uintptr_t)&here - 256) & ~(uintptr_t)63;
	/* Not saved: this library's keep (the kernel may have merged it with
	 * a neighbouring mapping), main's signal stack, this library's tables
	 * of threads, which a reset clears itself, and its scratch. */
	struct saved skip[9 + POOL_MAX];
	int nskip = 0;
	if (g_pool) {
		for (int i = 0; i < g_pool->n; i++) {
			struct pooled *pe = &k->pool[i + 2];
			skip[nskip++] = (struct saved){(uintptr_t)pe->stack, (uintptr_t)pe->stack + pe->len, 0};
		}
	}
	skip[nskip++] = (struct saved){(uintptr_t)k, (uintptr_t)k + sizeof *k, 0};
	if (self->altstack)
		skip[nskip++] = (struct saved){(uintptr_t)self->altstack, (uintptr_t)self->altstack + ALTSTACK_SIZE, 0};
	skip[nskip++] = (struct saved){(uintptr_t)threads, (uintptr_t)(threads + MAXTHREADS), 0};
	skip[nskip++] = (struct saved){(uintptr_t)stdbg_thread_ostids, (uintptr_t)(stdbg_thread_ostids + MAXTHREADS), 0};
	/* Scratch filled before each use, nothing to restore. */
	skip[nskip++] = (struct saved){(uintptr_t)&g_spin_got, (uintptr_t)(&g_spin_got + 1), 0};
	skip[nskip++] = (struct saved){(uintptr_t)g_pending_poked, (uintptr_t)(g_pending_poked + MAXTHREADS), 0};
	if (g_memlog) /* (its epochs only grow: rt/memlog.c) */
		skip[nskip++] = (struct saved){(uintptr_t)g_memlog, (uintptr_t)g_memlog + sizeof *g_memlog, 0};
	boot_range(&skip[nskip].lo, &skip[nskip].hi);
	nskip++;
	for (int i = 1; i < nskip; i++)
		for (int j = i; j > 0 && skip[j].lo < skip[j - 1].lo; j--) {
			struct saved t = skip[j];
			skip[j] = skip[j - 1];
			skip[j - 1] = t;
		}
	size_t total = 0;
	for (int i = 0; i < k->nmaps; i++) {
		struct region *r = &k->maps[i];
		if (r->perms[1] != 'w' || r->perms[3] != 'p' || r->kind == MAP_SPECIAL)
			continue;
		uintptr_t lo = r->lo;
		if (r->kind == MAP_STACK_MAIN) {
			if (sp < r->lo || sp >= r->hi)
				goto fail;
			lo = sp;
			k->stack_lo = sp;
		}
		for (int j = 0; j < nskip && lo < r->hi; j++) {
			if (skip[j].hi <= lo || skip[j].lo >= r->hi)
				continue;
			if (skip[j].lo > lo) {
				if (k->nsaved == REUSE_MAX_MAPS)
					goto fail;
				k->saved[k->nsaved++] = (struct saved){lo, skip[j].lo, total};
				total += skip[j].lo - lo;
			}
			lo = skip[j].hi;
		}
		if (lo < r->hi) {
			if (k->nsaved == REUSE_MAX_MAPS)
				goto fail;
			k->saved[k->nsaved++] = (struct saved){lo, r->hi, total};
			total += r->hi - lo;
		}
	}
	if (total > REUSE_MAX_SAVED)
		goto fail;
	k->snap = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (k->snap == MAP_FAILED)
		goto fail;
	k->snap_len = total;
	for (int i = 0; i < k->nsaved; i++) {
		struct saved *sv = &k->saved[i];
		memcpy(k->snap + sv->off, (void *)sv->lo, sv->hi - sv->lo);
	}
	k->ok = k->stack_lo != 0;
	return;
fail:
	k->ok = 0;
}

static struct pooled *reuse_pooled(int tid)
{
	if (!g_keep || !g_keep->ok || tid < 2 || tid >= MAXTHREADS)
		return NULL;
	return &g_keep->pool[tid];
}

/* pool_clear_stack gives a pooled thread the stack a new thread has, zeros
 * below the frame its start routine is called from, before it runs one
 * (STDBG_STATE=1): a stateful search hashes the thread's stack, and what
 * an earlier start routine left below its frames (a local not yet
 * written, the padding between two) would otherwise make a state differ
 * from the same state reached in a child whose pooled thread ran nothing
 * yet. Whole pages go back to the kernel (zeros when next touched); the
 * rest, up to this function's own stack pointer, is zeroed by a loop that
 * uses no stack. What is left above it, this frame and those of its
 * callers, was written by the same calls in every start. */
static __attribute__((noinline)) void pool_clear_stack(int tid)
{
#if defined(__x86_64__)
	struct pooled *pe = reuse_pooled(tid);
	if (!pe || !pe->stack)
		return;
	uintptr_t lo = (uintptr_t)pe->stack + (uintptr_t)g_page;
	uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
	if (fp > (uintptr_t)pe->stack + pe->len || fp < lo + 2 * (uintptr_t)g_page)
		return; /* not on its kept stack, or that stack all but used up */
	/* Two pages of room below this frame for madvise's own calls. */
	uintptr_t cut = (fp - 2 * (uintptr_t)g_page) & ~((uintptr_t)g_page - 1);
	if (cut > lo)
		madvise((void *)lo, cut - lo, MADV_DONTNEED);
	else
		cut = lo;
	uintptr_t dst = cut, n;
	__asm__ volatile("mov %%rsp, %1\n\t"
	                 "sub %0, %1\n\t"
	                 "xor %%eax, %%eax\n\t"
	                 "rep stosb"
	                 : "+D"(dst), "=&c"(n)
	                 :
	                 : "rax", "memory");
#else
	(void)tid;
#endif
}

static struct thr *reuse_thr(int tid)
{
	struct pooled *pe = reuse_pooled(tid);
	if (!pe)
		return NULL;
	if (!pe->thr) {
		void *p = mmap(NULL, sizeof(struct thr), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		pe->thr = p;
	}
	memset(pe->thr, 0, sizeof(struct thr));
	return pe->thr;
}

/* reuse_attr prepares *out, a copy of attr (or the defaults), with a kept
 * stack for thread tid; returns 0 to let glibc place the stack itself (the
 * program chose a stack, or nothing is kept). */
static int reuse_attr(pthread_attr_t *out, const pthread_attr_t *attr, int tid)
{
	struct pooled *pe = reuse_pooled(tid);
	if (!pe)
		return 0;
	size_t size = g_keep->def_stack;
	if (attr) {
		/* Without a stack of the program's, glibc answers address 0
		 * minus the size. */
		void *sa = NULL;
		size_t ss = 0;
		if (pthread_attr_getstack(attr, &sa, &ss) != 0 || (uintptr_t)sa + ss != 0)
			return 0;
		pthread_attr_getstacksize(attr, &size);
		memcpy(out, attr, sizeof *out);
	} else {
		pthread_attr_init(out);
	}
	size = (size + (size_t)g_page - 1) & ~((size_t)g_page - 1);
	size_t len = size + (size_t)g_page;
	if (pe->stack && pe->len != len) {
		munmap(pe->stack, pe->len);
		pe->stack = NULL;
	}
	if (!pe->stack) {
		/* At a place of its own, far below where the kernel puts the
		 * program's mappings, so that whether and when stacks are kept
		 * (a pool creates them before the snapshot) does not move them. */
		void *want = (void *)(KEPT_STACKS_BASE + (uintptr_t)tid * KEPT_STACK_SLOT);
		void *p = MAP_FAILED;
		if (len <= KEPT_STACK_SLOT)
			p = mmap(want, len, PROT_READ | PROT_WRITE,
			         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK | MAP_FIXED_NOREPLACE, -1, 0);
		if (p != MAP_FAILED && p != want) {
			munmap(p, len);
			p = MAP_FAILED;
		}
		if (p == MAP_FAILED)
			p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
			         -1, 0);
		if (p == MAP_FAILED)
			return 0;
		mprotect(p, (size_t)g_page, PROT_NONE); /* the guard page */
		pe->stack = p;
		pe->len = len;
	}
	pthread_attr_setstack(out, pe->stack + g_page, size);
	return 1;
}

/* reuse_altstack returns a kept signal stack for thread tid, or NULL. */
static void *reuse_altstack(int tid)
{
	struct pooled *pe = reuse_pooled(tid);
	if (!pe)
		return NULL;
	if (!pe->alt) {
		void *p = mmap(NULL, ALTSTACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		pe->alt = p;
	}
	return pe->alt;
}

/* reuse_refuse_next makes the child refuse the next reset. A detached
 * thread leaves through glibc on its own, after its last hand-over, and
 * resets after one have been seen to crash the next execution's first
 * thread creation when the program also grew its heap: until that is
 * understood, such executions are followed by a fresh fork. */
static void reuse_refuse_next(void)
{
	if (g_keep)
		g_keep->tainted = 1;
}

/* reuse_possible reports whether this child can answer a RESET. */
static int reuse_possible(void)
{
	struct keep *k = g_keep;
	return k && k->ok && !k->tainted && threads[1] && !threads[1]->finished;
}

/* reuse_obey is where a thread woken for a reset goes. */
static void reuse_obey(struct thr *t)
{
	if (t->die == 2)
		reuse_reset(t);
	if (t->pooled)
		pool_back(t);
	syscall(SYS_exit, 0);
	for (;;)
		;
}

static void __attribute__((noreturn)) reuse_refuse(void)
{
	die_now(REUSE_REFUSED);
}

/* NOTING interposes a call that a reset must know about: during an
 * execution it sets field of the keep, then calls the real function. */
#define NOTING(field, ret, name, params, args)                              \
	static ret(*real_##name) params;                                        \
	EXPORT ret name params                                                  \
	{                                                                       \
		if (!real_##name)                                               \
			RESOLVE(name);                                          \
		if (g_started && g_keep)                                        \
			g_keep->field = 1;                                      \
		return real_##name args;                                        \
	}

/* Calls whose effects outlive a reset: after one of them, during an
 * execution, the child refuses the next reset and the next execution is a
 * fresh fork. */
#define TAINTING(...) NOTING(tainted, __VA_ARGS__)

TAINTING(int, sigaction, (int sig, const struct sigaction *sa, struct sigaction *old), (sig, sa, old))
TAINTING(__sighandler_t, signal, (int sig, __sighandler_t h), (sig, h))
TAINTING(unsigned, alarm, (unsigned s), (s))
TAINTING(int, setitimer, (__itimer_which_t w, const struct itimerval *v, struct itimerval *o), (w, v, o))
TAINTING(int, timer_create, (clockid_t c, struct sigevent *ev, timer_t *t), (c, ev, t))
TAINTING(int, chdir, (const char *path), (path))
TAINTING(int, fchdir, (int fd), (fd))
TAINTING(void *, dlopen, (const char *file, int mode), (file, mode))

/* fork: the process that keeps the threads stays under the checker. The
 * child runs free: every interposed call goes to the real function, its
 * crashes are its own, and it does not touch the control socket or the
 * mailbox, so the parent's execution (and search) goes on as if the fork
 * were any other call between two thread operations. A child that creates
 * threads runs them free too: they are real threads, not scheduled, and
 * nothing it does is checked. In an execution, a fork taints the process:
 * the next execution is a fresh fork of the server. */
static void detach_child(void);

EXPORT pid_t fork(void)
{
	if (!real_fork)
		RESOLVE(fork);
	if (g_started && g_keep)
		g_keep->tainted = 1;
	pid_t pid = real_fork();
	if (pid == 0 && g_enabled)
		detach_child();
	return pid;
}

EXPORT pid_t vfork(void)
{
	/* A vfork child shares the parent's memory until it execs or exits:
	 * detaching it would detach the parent. A fork has the same meaning
	 * for a program that follows vfork's rules. */
	return fork();
}
TAINTING(mode_t, umask, (mode_t m), (m))

/* Calls that change the mappings: the next reset reads them to undo
 * what the execution mapped. */
#define MAPPING(...) NOTING(maps_dirty, __VA_ARGS__)

MAPPING(void *, mmap, (void *a, size_t n, int prot, int fl, int fd, off_t off), (a, n, prot, fl, fd, off))
MAPPING(void *, mmap64, (void *a, size_t n, int prot, int fl, int fd, off_t off), (a, n, prot, fl, fd, off))
MAPPING(int, munmap, (void *a, size_t n), (a, n))
MAPPING(int, mprotect, (void *a, size_t n, int prot), (a, n, prot))
MAPPING(void *, shmat, (int id, const void *a, int fl), (id, a, fl))
MAPPING(int, shmdt, (const void *a), (a))

EXPORT void *mremap(void *a, size_t n, size_t m, int fl, ...)
{
	static void *(*real)(void *, size_t, size_t, int, ...);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "mremap");
	if (g_started && g_keep)
		g_keep->maps_dirty = 1;
	va_list ap;
	va_start(ap, fl);
	void *to = va_arg(ap, void *);
	va_end(ap);
	return real(a, n, m, fl, to);
}

/* resolve_tainting finds the real functions at start, not in a signal
 * handler. */
static void resolve_tainting(void)
{
	RESOLVE(sigaction);
	RESOLVE(signal);
	RESOLVE(alarm);
	RESOLVE(setitimer);
	RESOLVE(timer_create);
	RESOLVE(chdir);
	RESOLVE(fchdir);
	RESOLVE(dlopen);
	RESOLVE(fork);
	RESOLVE(umask);
	RESOLVE(mmap);
	RESOLVE(mmap64);
	RESOLVE(munmap);
	RESOLVE(mprotect);
	RESOLVE(shmat);
	RESOLVE(shmdt);
}
