/* rt/core.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns the real functions the library forwards to (looked up with dlsym), the
 * library's global state (its flags, the current execution, the threads'
 * records) and low-level helpers: raw writes, futexes, fatal errors.
 */

/* ------------------------------------------------------------------ */
/* Real functions                                                      */

static int (*real_pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static int (*real_pthread_join)(pthread_t, void **);
static int (*real_pthread_tryjoin_np)(pthread_t, void **);
static int (*real_pthread_detach)(pthread_t);
static void (*real_pthread_exit)(void *) __attribute__((noreturn));
static int (*real_pthread_mutex_lock)(pthread_mutex_t *);
static int (*real_pthread_mutex_trylock)(pthread_mutex_t *);
static int (*real_pthread_mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
static int (*real_pthread_mutex_clocklock)(pthread_mutex_t *, clockid_t, const struct timespec *);
static int (*real_pthread_mutex_unlock)(pthread_mutex_t *);
static int (*real_pthread_mutex_init)(pthread_mutex_t *, const pthread_mutexattr_t *);
static int (*real_pthread_mutex_destroy)(pthread_mutex_t *);
static int (*real_pthread_cond_wait)(pthread_cond_t *, pthread_mutex_t *);
static int (*real_pthread_cond_timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
static int (*real_pthread_cond_clockwait)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *);
static int (*real_pthread_cond_signal)(pthread_cond_t *);
static int (*real_pthread_cond_broadcast)(pthread_cond_t *);
static int (*real_pthread_cond_init)(pthread_cond_t *, const pthread_condattr_t *);
static int (*real_pthread_cond_destroy)(pthread_cond_t *);
static int (*real_sem_init)(sem_t *, int, unsigned);
static int (*real_sem_wait)(sem_t *);
static int (*real_sem_trywait)(sem_t *);
static int (*real_sem_timedwait)(sem_t *, const struct timespec *);
static int (*real_sem_clockwait)(sem_t *, clockid_t, const struct timespec *);
static int (*real_sem_post)(sem_t *);
static int (*real_sem_getvalue)(sem_t *, int *);
static int (*real_sem_destroy)(sem_t *);
static int (*real_pthread_rwlock_init)(pthread_rwlock_t *, const pthread_rwlockattr_t *);
static int (*real_pthread_rwlock_rdlock)(pthread_rwlock_t *);
static int (*real_pthread_rwlock_wrlock)(pthread_rwlock_t *);
static int (*real_pthread_rwlock_tryrdlock)(pthread_rwlock_t *);
static int (*real_pthread_rwlock_trywrlock)(pthread_rwlock_t *);
static int (*real_pthread_rwlock_timedrdlock)(pthread_rwlock_t *, const struct timespec *);
static int (*real_pthread_rwlock_timedwrlock)(pthread_rwlock_t *, const struct timespec *);
static int (*real_pthread_rwlock_clockrdlock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
static int (*real_pthread_rwlock_clockwrlock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
static int (*real_pthread_rwlock_unlock)(pthread_rwlock_t *);
static int (*real_pthread_rwlock_destroy)(pthread_rwlock_t *);
static int (*real_pthread_barrier_init)(pthread_barrier_t *, const pthread_barrierattr_t *, unsigned);
static int (*real_pthread_barrier_wait)(pthread_barrier_t *);
static int (*real_pthread_barrier_destroy)(pthread_barrier_t *);
static int (*real_pthread_spin_init)(pthread_spinlock_t *, int);
static int (*real_pthread_spin_lock)(pthread_spinlock_t *);
static int (*real_pthread_spin_trylock)(pthread_spinlock_t *);
static int (*real_pthread_spin_unlock)(pthread_spinlock_t *);
static int (*real_pthread_spin_destroy)(pthread_spinlock_t *);
static int (*real_pthread_once)(pthread_once_t *, void (*)(void));
static int (*real_sched_yield)(void);
static unsigned (*real_sleep)(unsigned);
static int (*real_usleep)(useconds_t);
static int (*real_nanosleep)(const struct timespec *, struct timespec *);
static int (*real_clock_nanosleep)(clockid_t, int, const struct timespec *, struct timespec *);
static void (*real_exit)(int) __attribute__((noreturn));
static pid_t (*real_fork)(void);
static void (*real__exit)(int) __attribute__((noreturn));
static void (*real_abort)(void) __attribute__((noreturn));
static void (*real_assert_fail)(const char *, const char *, unsigned, const char *) __attribute__((noreturn));
static int (*real_thrd_create)(thrd_t *, thrd_start_t, void *);
static int (*real_thrd_join)(thrd_t, int *);
static int (*real_thrd_detach)(thrd_t);
static void (*real_thrd_exit)(int) __attribute__((noreturn));
static void (*real_thrd_yield)(void);
static int (*real_thrd_sleep)(const struct timespec *, struct timespec *);
static int (*real_mtx_init)(mtx_t *, int);
static int (*real_mtx_lock)(mtx_t *);
static int (*real_mtx_trylock)(mtx_t *);
static int (*real_mtx_timedlock)(mtx_t *restrict, const struct timespec *restrict);
static int (*real_mtx_unlock)(mtx_t *);
static void (*real_mtx_destroy)(mtx_t *);
static int (*real_cnd_init)(cnd_t *);
static int (*real_cnd_wait)(cnd_t *, mtx_t *);
static int (*real_cnd_timedwait)(cnd_t *restrict, mtx_t *restrict, const struct timespec *restrict);
static int (*real_cnd_signal)(cnd_t *);
static int (*real_cnd_broadcast)(cnd_t *);
static void (*real_cnd_destroy)(cnd_t *);
static void (*real_call_once)(once_flag *, void (*)(void));

#define RESOLVE(name) (*(void **)&real_##name = dlsym(RTLD_NEXT, #name))

static void resolve_all(void)
{
	RESOLVE(pthread_create);
	RESOLVE(pthread_join);
	RESOLVE(pthread_tryjoin_np);
	RESOLVE(pthread_detach);
	RESOLVE(pthread_exit);
	RESOLVE(pthread_mutex_lock);
	RESOLVE(pthread_mutex_trylock);
	RESOLVE(pthread_mutex_timedlock);
	RESOLVE(pthread_mutex_clocklock);
	RESOLVE(pthread_mutex_unlock);
	RESOLVE(pthread_mutex_init);
	RESOLVE(pthread_mutex_destroy);
	RESOLVE(pthread_cond_wait);
	RESOLVE(pthread_cond_timedwait);
	RESOLVE(pthread_cond_clockwait);
	RESOLVE(pthread_cond_signal);
	RESOLVE(pthread_cond_broadcast);
	RESOLVE(pthread_cond_init);
	RESOLVE(pthread_cond_destroy);
	RESOLVE(sem_init);
	RESOLVE(sem_wait);
	RESOLVE(sem_trywait);
	RESOLVE(sem_timedwait);
	RESOLVE(sem_clockwait);
	RESOLVE(sem_post);
	RESOLVE(sem_getvalue);
	RESOLVE(sem_destroy);
	RESOLVE(pthread_rwlock_init);
	RESOLVE(pthread_rwlock_rdlock);
	RESOLVE(pthread_rwlock_wrlock);
	RESOLVE(pthread_rwlock_tryrdlock);
	RESOLVE(pthread_rwlock_trywrlock);
	RESOLVE(pthread_rwlock_timedrdlock);
	RESOLVE(pthread_rwlock_timedwrlock);
	RESOLVE(pthread_rwlock_clockrdlock);
	RESOLVE(pthread_rwlock_clockwrlock);
	RESOLVE(pthread_rwlock_unlock);
	RESOLVE(pthread_rwlock_destroy);
	RESOLVE(pthread_barrier_init);
	RESOLVE(pthread_barrier_wait);
	RESOLVE(pthread_barrier_destroy);
	RESOLVE(pthread_spin_init);
	RESOLVE(pthread_spin_lock);
	RESOLVE(pthread_spin_trylock);
	RESOLVE(pthread_spin_unlock);
	RESOLVE(pthread_spin_destroy);
	RESOLVE(pthread_once);
	RESOLVE(sched_yield);
	RESOLVE(sleep);
	RESOLVE(usleep);
	RESOLVE(nanosleep);
	RESOLVE(clock_nanosleep);
	RESOLVE(exit);
	RESOLVE(_exit);
	RESOLVE(abort);
	*(void **)&real_assert_fail = dlsym(RTLD_NEXT, "__assert_fail");
	RESOLVE(thrd_create);
	RESOLVE(thrd_join);
	RESOLVE(thrd_detach);
	RESOLVE(thrd_exit);
	RESOLVE(thrd_yield);
	RESOLVE(thrd_sleep);
	RESOLVE(mtx_init);
	RESOLVE(mtx_lock);
	RESOLVE(mtx_trylock);
	RESOLVE(mtx_timedlock);
	RESOLVE(mtx_unlock);
	RESOLVE(mtx_destroy);
	RESOLVE(cnd_init);
	RESOLVE(cnd_wait);
	RESOLVE(cnd_timedwait);
	RESOLVE(cnd_signal);
	RESOLVE(cnd_broadcast);
	RESOLVE(cnd_destroy);
	RESOLVE(call_once);
}

/* ------------------------------------------------------------------ */
/* State                                                               */

struct thr {
	int tid;
	pid_t ostid;
	pthread_t pt;
	int have_pt;
	uint32_t go;      /* futex word: 1 when it is this thread's turn */
	uint32_t started; /* futex word: set when a new thread reported */
	int first;        /* next report is the thread's first */
	int finished;
	int joined; /* the program joined it (stdbg's join, the real one may lag) */
	int reaped;
	int64_t result;
	void *(*start)(void *);
	void *arg;
	void *retval;
	void *where; /* user start routine, for the location of its return */
	int c11; /* created by thrd_create: start returns int */
	uint16_t pending_kind; /* kind of the operation it waits to perform */
	uint16_t pending_api;
	void *altstack;
	uintptr_t sp;       /* the user's stack pointer at its scheduling point (STDBG_F_STATE) */
	uintptr_t stack_hi; /* the top of its stack */
	int die;            /* reuse: 1 leave at once, 2 (main) reset the process */
	int pooled;         /* run by a thread of the pool (rt/pool.c) */
	int lazy;           /* pooled, its start reported by its creator, not handed to its thread yet */
	int ctx;            /* runs as a context on the main kernel thread (rt/context.c) */
	uintptr_t csp;      /* a context's saved stack pointer, while it does not run */
	uintptr_t cfs;      /* a context's thread pointer: its glibc thread descriptor */
	uint64_t fcw, mxcsr; /* a pooled thread's floating-point control words: its creator's */
	sigset_t mask;       /* a pooled thread's signal mask: its creator's */
	/* Spin reports (rt/spin.c). */
	int spin_dirty;          /* its transition did something the checker does not see */
	int spin_unchanged;      /* the atomic operation of its last point left memory as it was */
	int spin_after_point;    /* its point's atomic operation has not reported yet */
	uintptr_t spin_point_obj; /* the address of its point's operation */
	uint64_t spin_calls;     /* *g_spin_calls at its last point */
	uintptr_t spin_hi;       /* the top of the part of its stack in its state */
	uintptr_t spin_sp;       /* its stack pointer at its last point: its live stack is above */
	uintptr_t spin_tp;       /* its thread pointer at its last point */
	uint64_t spin_seen[16];  /* the points of its clean stretch (spin_seen) */
	int spin_nseen;
	/* The operands of the atomic operation it is reporting (OPERAND_*
	 * of stdbg_wire.h, 0 none), sent with its PENDING for display. */
	uint32_t operand_op;
	uint64_t operand_v, operand_w;
};

/* Published for debuggers: stdbg_thread_ostids[tid] is the kernel thread id
 * of stdbg thread tid (0 if none). */
#define MAXTHREADS 4096
EXPORT volatile int stdbg_thread_ostids[MAXTHREADS];
EXPORT volatile int stdbg_current_tid;

static struct thr *threads[MAXTHREADS];
static int nthreads;

static __thread struct thr *self __attribute__((tls_model("initial-exec")));
/* Set while the library itself runs code that may call intercepted
 * functions (the unwinder calls pthread_once, for instance): such calls
 * go straight to the real implementation. */
static __thread int in_runtime __attribute__((tls_model("initial-exec")));

static int g_enabled;      /* under the checker, or replaying a log */
static int g_mem_log;      /* STDBG_MEM_LOG=1: plain accesses are logged, not scheduling points */
static int g_replay;       /* following a decision log, without a checker */
static int g_started;      /* the fork server started (we are in a child) */
static int g_exiting;      /* the process is leaving: pass everything through */
static int g_failed;       /* a failure was reported */
static int g_detached;     /* the child of a program's fork: runs free */
static int g_ctl = -1;     /* control socket */
static uint8_t *g_mailbox; /* both slots */
static struct stdbg_slot *g_slot;
static uint32_t g_gen;
static uint32_t g_flags;
static pid_t g_server_pid; /* the fork server (parent of each child) */
static pid_t g_checker_pid;
static uintptr_t g_self_lo, g_self_hi; /* this library's text, to drop own frames */

#define SIGSTACK (SIGRTMIN + 6) /* asks the running thread for its stack */

/* ------------------------------------------------------------------ */
/* Low level                                                           */

static long sys_futex(uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, addr, op, val, ts, NULL, 0);
}

static void __attribute__((noreturn)) die_now(int status)
{
	syscall(SYS_exit_group, status);
	for (;;)
		;
}

static void raw_write(int fd, const char *s)
{
	size_t n = strlen(s);
	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void fatal(const char *why) __attribute__((noreturn));

/* lifeline: called while waiting; leaves if the checker is gone. */
static void lifeline(void)
{
	if (!g_started || g_replay)
		return;
	if (getppid() != g_server_pid)
		die_now(70);
	if (g_checker_pid > 0 && kill(g_checker_pid, 0) != 0 && errno == ESRCH)
		die_now(70);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}
