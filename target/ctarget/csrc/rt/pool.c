/* rt/pool.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns the thread pool of a reused child (STDBG_F_REUSE): threads created
 * before the snapshot, parked, and handed the program's start routines by
 * pthread_create instead of new threads, so that an execution does not pay
 * for creating and ending its threads. glibc's memory in the snapshot
 * already counts them, so a reset leaves glibc and the kernel agreeing.
 * A pooled thread puts its static TLS back to the initial images before it
 * runs a start routine; what it cannot put back (pthread_exit, keys)
 * makes it exit for real and the next reset is refused (a fresh fork).
 */

#include <link.h>
#include <elf.h>

typedef struct {
	unsigned long ti_module;
	unsigned long ti_offset;
} stdbg_tls_index;
extern void *__tls_get_addr(stdbg_tls_index *);
extern void __call_tls_dtors(void) __attribute__((weak));

#define POOL_MAX 64
#define CTX_STACK (16 * 1024)       /* a park stack (rt/context.c): every signal blocked there */
#define CTX_IDLE_STACK (256 * 1024) /* the runner's idle stack (rt/context.c) */
#define POOL_MODS 64

struct tls_image {
	unsigned long modid;
	const void *init;
	size_t filesz, memsz;
};

struct pool_slot {
	pthread_t pt;
	uint32_t go;      /* futex: a job (or a reset) is waiting */
	uint32_t parked;  /* futex: the thread waits in its loop */
	int dead;         /* it left for real */
	pid_t ostid;      /* its kernel thread id */
	struct thr *job;
	void *jb[5];      /* where a reset sends it back */
	sigset_t mask;
	/* Contexts (rt/context.c): */
	int boot;            /* its context starts on the runner, with its job */
	int kernel;          /* its context went back to its kernel thread (demoted) */
	uintptr_t demote_sp; /* the context to resume there */
	_Alignas(16) uint8_t park[CTX_STACK]; /* where its kernel thread waits meanwhile */
};

/* Not in the snapshot: kept by a reset (a part of the keep). */
struct pool {
	int n;
	struct pool_slot slot[POOL_MAX];
	struct tls_image img[POOL_MODS];
	int nimg;
	/* The runner's, when no context runs: a signal handler of the
	 * program may run on it. */
	_Alignas(16) uint8_t idle[CTX_IDLE_STACK];
};
static struct pool *g_pool;
/* The execution created pthread keys: their destructors run when a thread
 * really ends, so its threads are not pooled. In the snapshot: every
 * execution starts without. */
static int g_keys_used;

static int tls_images(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct pool *p = data;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_TLS || info->dlpi_tls_modid == 0 || p->nimg == POOL_MODS)
			continue;
		/* The initial image is the segment in the file, not dlpi_tls_data
		 * (the calling thread's copy, as it is now). */
		p->img[p->nimg++] = (struct tls_image){info->dlpi_tls_modid, (const void *)(info->dlpi_addr + ph->p_vaddr),
		                                       ph->p_filesz, ph->p_memsz};
	}
	return 0;
}

/* pool_fresh_tls puts the calling thread's static TLS back to what a new
 * thread starts with. */
static void pool_fresh_tls(void)
{
	for (int i = 0; i < g_pool->nimg; i++) {
		struct tls_image *im = &g_pool->img[i];
		stdbg_tls_index ti = {im->modid, 0};
		uint8_t *blk = __tls_get_addr(&ti);
		if (im->filesz)
			memcpy(blk, im->init, im->filesz);
		memset(blk + im->filesz, 0, im->memsz - im->filesz);
	}
}

/* pool_fresh_fpu gives the calling thread the floating-point control
 * words of t's creator, as a thread created by clone starts with. */
static void pool_fresh_fpu(struct thr *t)
{
#if defined(__x86_64__)
	uint16_t cw = (uint16_t)t->fcw;
	uint32_t m = (uint32_t)t->mxcsr;
	__asm__ volatile("fldcw %0" ::"m"(cw));
	__asm__ volatile("ldmxcsr %0" ::"m"(m));
#else
	(void)t;
#endif
}

static void pool_park(struct pool_slot *s)
{
	pthread_sigmask(SIG_SETMASK, &s->mask, NULL);
	__atomic_store_n(&s->parked, 1, __ATOMIC_SEQ_CST);
	sys_futex(&s->parked, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
	while (!__atomic_load_n(&s->go, __ATOMIC_ACQUIRE))
		sys_futex(&s->go, FUTEX_WAIT_PRIVATE, 0, NULL);
	__atomic_store_n(&s->go, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->parked, 0, __ATOMIC_SEQ_CST);
}

static void *thread_start(void *p);
static int reuse_attr(pthread_attr_t *out, const pthread_attr_t *attr, int tid);

/* Keys: their destructors run when a thread really leaves. */
static int (*real_pthread_key_create)(pthread_key_t *, void (*)(void *));
EXPORT int pthread_key_create(pthread_key_t *key, void (*dtor)(void *))
{
	if (!real_pthread_key_create)
		RESOLVE(pthread_key_create);
	if (g_started)
		g_keys_used = 1;
	return real_pthread_key_create(key, dtor);
}

static int (*real_tss_create)(tss_t *, tss_dtor_t);
EXPORT int tss_create(tss_t *key, tss_dtor_t dtor)
{
	if (!real_tss_create)
		RESOLVE(tss_create);
	if (g_started)
		g_keys_used = 1;
	return real_tss_create(key, dtor);
}

static int g_ctx; /* contexts on in this child (rt/context.c; decided before the snapshot) */
__attribute__((visibility("hidden"))) void stdbg_ctx_swap(uintptr_t *save, uintptr_t to_sp, uintptr_t to_fs, int wrfs);
static uintptr_t ctx_frame(uintptr_t top, void (*fn)(void *), void *arg);
static void ctx_fpu(uint64_t *fcw, uint64_t *mxcsr);
static void ctx_after(void);
static void ctx_leave(struct thr *me) __attribute__((noreturn));
static void ctx_decide(struct thr *main_thr);

/* pool_sleep is the kernel thread of a slot whose thread runs as a
 * context: it waits on its park stack, with every signal blocked, until
 * its context is demoted (rt/context.c), then runs it. */
static void pool_sleep(void *arg)
{
	struct pool_slot *s = arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
	__atomic_store_n(&s->parked, 1, __ATOMIC_SEQ_CST);
	sys_futex(&s->parked, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
	uint32_t v;
	while ((v = __atomic_load_n(&s->go, __ATOMIC_ACQUIRE)) != 2)
		sys_futex(&s->go, FUTEX_WAIT_PRIVATE, v, NULL);
	__atomic_store_n(&s->go, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->parked, 0, __ATOMIC_SEQ_CST);
	s->kernel = 1;
	pthread_sigmask(SIG_SETMASK, &s->mask, NULL);
	uintptr_t gone;
	stdbg_ctx_swap(&gone, s->demote_sp, 0, 0);
}

/* pool_dormant moves the calling pooled thread to its park stack for
 * good: its own stack is its context's. */
static void pool_dormant(struct pool_slot *s)
{
	uintptr_t gone;
	stdbg_ctx_swap(&gone, ctx_frame((uintptr_t)s->park + sizeof s->park, pool_sleep, s), 0, 0);
}

/* pool_ctx_boot starts slot arg's context on the runner: back into
 * pool_main, which finds its job. */
static void pool_ctx_boot(void *arg)
{
	struct pool_slot *s = arg;
	ctx_after();
	__builtin_longjmp(s->jb, 1);
}

static void pool_clear_stack(int tid); /* (rt/reuse.c) */

static void *pool_main(void *arg)
{
	struct pool_slot *s = arg;
	s->ostid = (pid_t)syscall(SYS_gettid);
	pthread_sigmask(SIG_SETMASK, NULL, &s->mask);
	__builtin_setjmp(s->jb); /* a reset comes back here, and a context's start */
	for (;;) {
		if (s->boot)
			s->boot = 0; /* a context started on the runner, with its job */
		else if (g_ctx && !s->kernel)
			pool_dormant(s); /* the kernel thread waits on its park stack */
		else
			pool_park(s);
		struct thr *t = s->job;
		s->job = NULL;
		if (!t)
			continue;
		pool_fresh_tls();
		pool_fresh_fpu(t);
		if (!t->ctx)
			pthread_sigmask(SIG_SETMASK, &t->mask, NULL); /* its creator's, as a new thread's */
		if (g_state_env)
			pool_clear_stack(t->tid);
		thread_start(t);
		if (g_ctx && !s->kernel)
			ctx_leave(t); /* on the runner, with nobody named to run next */
		if (__call_tls_dtors)
			__call_tls_dtors();
		if (g_keys_used) {
			/* Keys were created while it ran: their destructors are
			 * glibc's to run. Leave for real; the pool is broken. */
			s->dead = 1;
			reuse_refuse_next();
			return NULL;
		}
	}
}

/* pool_create starts n parked threads for thread ids 2..n+1, on the kept
 * stacks of those ids. Called in the child before the snapshot. */
static void pool_create(struct pool *p, int n)
{
	if (n <= 0 || g_pool)
		return;
#if !defined(__x86_64__)
	/* A pooled thread's stack is cleared for a stateful search on x86-64
	 * only (pool_clear_stack): elsewhere such a search creates its
	 * threads. */
	if (g_state_env)
		return;
#endif
	if (n > POOL_MAX)
		n = POOL_MAX;
	dl_iterate_phdr(tls_images, p);
	g_pool = p;
	ctx_decide(threads[1]);
	for (int i = 0; i < n; i++) {
		struct pool_slot *s = &p->slot[i];
		pthread_attr_t kept;
		if (!reuse_attr(&kept, NULL, i + 2) || real_pthread_create(&s->pt, &kept, pool_main, s) != 0)
			break;
		while (!__atomic_load_n(&s->parked, __ATOMIC_ACQUIRE))
			sys_futex(&s->parked, FUTEX_WAIT_PRIVATE, 0, NULL);
		p->n = i + 1;
	}
}

/* pool_has reports whether thread id tid has a pooled thread (on the kept
 * stack of that id). */
static int pool_has(int tid)
{
	return g_pool && tid >= 2 && tid - 2 < g_pool->n;
}

/* pool_take gives t (a thread being created) the pooled thread of its id,
 * if there is one; *pt gets that thread's pthread_t. The pooled thread is
 * not woken: t is lazy, and its start, the same for every thread, is
 * reported by its creator (pool_report_start). It gets its start routine
 * when it first gets the turn (pool_run), so that creating it costs no
 * switch of threads. */
static int pool_take(struct thr *t, pthread_t *pt)
{
	struct pool *p = g_pool;
	int i = t->tid - 2;
	if (!p || g_keys_used || i < 0 || i >= p->n || p->slot[i].dead || !__atomic_load_n(&p->slot[i].parked, __ATOMIC_ACQUIRE))
		return 0;
	struct pool_slot *s = &p->slot[i];
	t->pooled = 1;
	t->lazy = 1;
	t->ctx = g_ctx && !s->kernel;
	t->cfs = (uintptr_t)s->pt;
	ctx_fpu(&t->fcw, &t->mxcsr); /* the creator's, which a new thread starts with */
	if (!t->ctx) /* (contexts share the runner's: the program cannot change it, rt/context.c) */
		pthread_sigmask(SIG_BLOCK, NULL, &t->mask);
	/* A context runs on the main kernel thread. */
	t->ostid = t->ctx ? threads[1]->ostid : s->ostid;
	if (t->tid < MAXTHREADS)
		stdbg_thread_ostids[t->tid] = t->ostid;
	s->job = t;
	*pt = s->pt;
	return 1;
}

/* pool_run hands a lazy thread's start routine to its pooled thread, which
 * runs it at once: the thread has the turn. */
static void pool_run(struct thr *t)
{
	struct pool_slot *s = &g_pool->slot[t->tid - 2];
	t->lazy = 0;
	__atomic_store_n(&s->go, 1, __ATOMIC_SEQ_CST);
	sys_futex(&s->go, FUTEX_WAKE_PRIVATE, 1, NULL);
}

/* pool_unassign takes a lazy thread's job back from its pooled thread,
 * which never ran it (a reset). */
static void pool_unassign(struct thr *t)
{
	g_pool->slot[t->tid - 2].job = NULL;
	t->lazy = 0;
}

/* pool_back sends a pooled thread told to leave by a reset back to its
 * loop. */
static void pool_back(struct thr *t)
{
	struct pool_slot *s = &g_pool->slot[t->tid - 2];
	__builtin_longjmp(s->jb, 1);
}

/* pool_wait_parked waits until every live pooled thread waits in its
 * loop; returns the number of them, -1 if one does not come back. */
static int pool_wait_parked(void)
{
	struct pool *p = g_pool;
	if (!p)
		return 0;
	int live = 0;
	for (int i = 0; i < p->n; i++) {
		struct pool_slot *s = &p->slot[i];
		if (s->dead)
			return -1;
		struct timespec ts = {0, 10 * 1000000L};
		for (int tries = 0; !__atomic_load_n(&s->parked, __ATOMIC_ACQUIRE); tries++) {
			if (tries == 200)
				return -1;
			sys_futex(&s->parked, FUTEX_WAIT_PRIVATE, 0, &ts);
		}
		live++;
	}
	return live;
}
