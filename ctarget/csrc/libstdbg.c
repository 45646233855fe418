/* libstdbg: the stdbg interposition library for C and C++ targets.
 *
 * Loaded with LD_PRELOAD into an unmodified, dynamically linked program, it
 * intercepts the thread API (POSIX threads, C11 threads, and through them
 * C++ std::thread/mutex/condition_variable), turns every call into a
 * scheduling point, and lets exactly one thread run at a time: the one the
 * checker picks. The semantics of the calls (who may run, what a call
 * returns, what is a misuse) are decided by the checker's Go model; this
 * library reports operations, obeys and returns what it is told.
 *
 * Without STDBG_CTL in the environment the library is inert: every call
 * goes straight to the real implementation.
 *
 * Process structure: at the first scheduling point of the main thread (the
 * process is still single-threaded) the library becomes a fork server. Each
 * execution the checker asks for is a fork of that point; the server reaps
 * it and reports its death in the mailbox (see stdbg_wire.h).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <malloc.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <threads.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "stdbg_ops.h"
#include "stdbg_wire.h"

#define EXPORT __attribute__((visibility("default")))
#define MAXFRAMES 48
#define ALTSTACK_SIZE (64 * 1024) /* each thread's signal stack */
#define LIFELINE_MS 100

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

/* ------------------------------------------------------------------ */
/* Mailbox                                                             */

/* Bytes of messages written into the slot but not yet handed over. The
 * slot's up_len is only set when the slot is handed over, so that a checker
 * woken for another reason (the fork server reporting an older child's
 * death in this slot) never sees half a message. */
static uint32_t g_up_len;

static void up_put(const void *p, size_t n)
{
	struct stdbg_slot *s = g_slot;
	if (g_up_len + n > STDBG_UP_CAP)
		fatal("mailbox overflow");
	memcpy(s->up + g_up_len, p, n);
	g_up_len += (uint32_t)n;
}

static void up_hdr(uint16_t type, uint32_t len)
{
	struct stdbg_msg_hdr h = {type, 0, len};
	up_put(&h, sizeof h);
}

static void up_flush(void)
{
	struct stdbg_slot *s = g_slot;
	__atomic_store_n(&s->up_len, g_up_len, __ATOMIC_RELEASE);
	__atomic_add_fetch(&s->up_seq, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&s->checker_sleeping, __ATOMIC_SEQ_CST))
		sys_futex(&s->up_seq, FUTEX_WAKE, INT_MAX, NULL);
}

/* wait_down waits until the checker answered (down_seq moved past last). */
static void wait_down(uint32_t last)
{
	struct stdbg_slot *s = g_slot;
	/* The checker usually answers within microseconds from another CPU:
	 * poll first, unless it runs on this CPU, where polling only keeps
	 * it from running. */
	int spin = (g_flags & STDBG_F_NO_SPIN) ? 0 : 1500;
	for (int i = 0; i < spin; i++) {
		if (__atomic_load_n(&s->down_seq, __ATOMIC_ACQUIRE) != last)
			return;
		cpu_relax();
	}
	struct timespec ts = {0, LIFELINE_MS * 1000000L};
	for (;;) {
		__atomic_store_n(&s->runtime_sleeping, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&s->down_seq, __ATOMIC_SEQ_CST) != last)
			break;
		sys_futex(&s->down_seq, FUTEX_WAIT, last, &ts);
		if (__atomic_load_n(&s->down_seq, __ATOMIC_SEQ_CST) != last)
			break;
		lifeline();
	}
	__atomic_store_n(&s->runtime_sleeping, 0, __ATOMIC_RELAXED);
}

static void replay_next(uint32_t *tid, int64_t *code);
static void put_state(void);
struct thr;
static void reuse_obey(struct thr *t) __attribute__((noreturn));
static int reuse_possible(void);
static void reuse_refuse_next(void);
static uint32_t g_fail_seq; /* down_seq when the failure was reported */
static void reuse_reset(struct thr *me) __attribute__((noreturn));

/* obey_reset resets the child if the checker's answer is RESET. */
static void obey_reset(void)
{
	struct stdbg_msg_hdr h;
	if (g_slot->down_len < sizeof h)
		return;
	memcpy(&h, g_slot->down, sizeof h);
	if (h.type == M_RESET)
		reuse_reset(self);
}

/* exchange hands the mailbox to the checker and returns its M_RUN answer. */
static void exchange(uint32_t *tid, int64_t *code)
{
	if (g_replay) {
		replay_next(tid, code);
		return;
	}
	struct stdbg_slot *s = g_slot;
	uint32_t last = __atomic_load_n(&s->down_seq, __ATOMIC_ACQUIRE);
	if (g_flags & STDBG_F_STATE)
		put_state();
	up_flush();
	wait_down(last);
	g_up_len = 0; /* the checker consumed the messages */
	obey_reset();
	if (s->down_len < sizeof(struct stdbg_msg_hdr) + sizeof(struct stdbg_run))
		fatal("short answer from the checker");
	struct stdbg_msg_hdr h;
	struct stdbg_run r;
	memcpy(&h, s->down, sizeof h);
	memcpy(&r, s->down + sizeof h, sizeof r);
	if (h.type != M_RUN)
		fatal("unexpected message from the checker");
	*tid = r.tid;
	*code = r.code;
}

/* ------------------------------------------------------------------ */
/* Stacks                                                              */

static int own_frame(uintptr_t pc)
{
	return pc >= g_self_lo && pc < g_self_hi;
}

/* collect fills frames with a backtrace, without this library's frames. */
static int collect(uint64_t *frames, int max)
{
	void *buf[MAXFRAMES + 8];
	in_runtime++;
	int n = backtrace(buf, MAXFRAMES + 8);
	in_runtime--;
	int k = 0;
	for (int i = 0; i < n && k < max; i++) {
		if (own_frame((uintptr_t)buf[i]))
			continue;
		frames[k++] = (uint64_t)(uintptr_t)buf[i];
	}
	return k;
}

static void put_strings(const char *a, const char *b, const char *c)
{
	const char *v[3] = {a ? a : "", b ? b : "", c ? c : ""};
	for (int i = 0; i < 3; i++) {
		uint32_t n = (uint32_t)strlen(v[i]);
		if (n > 4000)
			n = 4000;
		up_put(&n, 4);
		up_put(v[i], n);
	}
}

static uint32_t str_len_capped(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	return n > 4000 ? 4000 : (uint32_t)n;
}

/* report_failure writes an M_FAILURE and hands the mailbox over. */
static void report_failure(uint16_t kind, int signo, uint64_t addr, const uint64_t *frames, int nframes,
                           const char *msg, const char *file, unsigned line, const char *func)
{
	if (!g_started || g_failed || g_replay)
		return;
	g_failed = 1;
	uint32_t len = sizeof(struct stdbg_failure) + 8u * (uint32_t)nframes + 12 + str_len_capped(msg) +
	               str_len_capped(file) + str_len_capped(func);
	struct stdbg_failure f = {0};
	f.tid = self ? (uint32_t)self->tid : 0;
	f.kind = kind;
	f.signo = signo;
	f.line = line;
	f.addr = addr;
	f.nframes = (uint32_t)nframes;
	up_hdr(M_FAILURE, len);
	up_put(&f, sizeof f);
	up_put(frames, 8u * (size_t)nframes);
	put_strings(msg, file, func);
	g_fail_seq = __atomic_load_n(&g_slot->down_seq, __ATOMIC_ACQUIRE);
	up_flush();
}

/* failure_exit ends a child after a failure it reported with fast exit.
 * A failure that leaves the process intact (an assertion, abort) lets a
 * child that may be reused wait for the checker's RESET instead. */
static void __attribute__((noreturn)) failure_exit(int status)
{
	if ((g_flags & STDBG_F_REUSE) && reuse_possible()) {
		wait_down(g_fail_seq);
		g_up_len = 0;
		obey_reset();
	}
	die_now(status);
}

static void fatal(const char *why)
{
	char buf[256];
	snprintf(buf, sizeof buf, "stdbg: %s\n", why);
	raw_write(2, buf);
	if (g_started && !g_failed) {
		uint64_t none[1];
		report_failure(FAIL_RUNTIME, 0, 0, none, 0, why, "", 0, "");
	}
	die_now(70);
}

/* ------------------------------------------------------------------ */
/* Threads and turns                                                   */

static struct thr *reuse_thr(int tid);

static struct thr *thr_new(int tid)
{
	if (tid <= 0 || tid >= MAXTHREADS)
		fatal("too many threads (stdbg supports 4095)");
	/* Not from malloc: the program's heap is part of its state (stateful
	 * search), this library's records are not. */
	struct thr *t = reuse_thr(tid);
	if (!t) {
		t = mmap(NULL, sizeof *t, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (t == MAP_FAILED)
			fatal("out of memory");
	}
	t->tid = tid;
	t->first = 1;
	threads[tid] = t;
	if (tid > nthreads)
		nthreads = tid;
	return t;
}

static struct thr *thr_by_pt(pthread_t pt)
{
	for (int i = nthreads; i >= 1; i--) {
		struct thr *t = threads[i];
		if (t && t->have_pt && pthread_equal(t->pt, pt))
			return t;
	}
	return NULL;
}

static void give_turn(struct thr *t)
{
	__atomic_store_n(&t->go, 1, __ATOMIC_SEQ_CST);
	sys_futex(&t->go, FUTEX_WAKE_PRIVATE, 1, NULL);
}

/* wait_turn blocks until another thread gives this one the turn. The wait
 * is on a per-thread futex word and does not depend on any other thread
 * running afterwards, so debuggers may freeze the thread that handed over
 * (scheduler locking). */
static void wait_turn(struct thr *t)
{
	struct timespec ts = {0, LIFELINE_MS * 1000000L};
	/* The thread that gives the turn may run on another CPU: poll a
	 * little, unless the threads share one CPU. */
	int spin = (g_flags & (STDBG_F_ONE_CPU | STDBG_F_NO_SPIN)) ? 0 : 200;
	for (int i = 0; i < spin; i++) {
		if (__atomic_load_n(&t->go, __ATOMIC_ACQUIRE))
			goto mine;
		cpu_relax();
	}
	while (!__atomic_load_n(&t->go, __ATOMIC_ACQUIRE)) {
		sys_futex(&t->go, FUTEX_WAIT_PRIVATE, 0, &ts);
		lifeline();
	}
mine:
	__atomic_store_n(&t->go, 0, __ATOMIC_RELAXED);
	if (t->die)
		reuse_obey(t);
	stdbg_current_tid = t->tid;
}

/* stdbg_step is called whenever control passes from one thread to the
 * next; debuggers put a breakpoint on it. Its body keeps it from being
 * folded away. */
EXPORT __attribute__((noinline, used)) void stdbg_step(int from, int to)
{
	__asm__ volatile("" ::"r"(from), "r"(to) : "memory");
}

static void server_start(void);
static void reuse_snapshot(void);
/* Where a reset jumps back to (set before the snapshot, so restored
 * intact by it). */
static void *g_reset_jb[5];
static void note_sp(struct thr *me, void *ra);
static void state_init(void);
static int g_state_env;

/* ------------------------------------------------------------------ */
/* Replay of a decision log, without a checker                         */

/* A decision log (STDBG_REPLAY=FILE) is what the checker decided in one
 * execution: for every step the thread, the kind of operation it performs
 * and the operation's result. The library follows it alone, which is what
 * a debugger session needs; the checker's model has already decided every
 * result. A thread that is not where the log says is a divergence. */
struct decision {
	uint32_t tid;
	uint16_t kind;
	int64_t code;
};

static struct decision *g_log;
static long g_log_len, g_log_pos;
static int g_log_quiet;

/* stdbg_replay_step is the number of the step about to run (1-based), for
 * debuggers; stdbg_replay_total the length of the log. */
EXPORT volatile long stdbg_replay_step;
EXPORT volatile long stdbg_replay_total;

static void load_log(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		char buf[512];
		snprintf(buf, sizeof buf, "stdbg: cannot open replay log %s: %s\n", path, strerror(errno));
		raw_write(2, buf);
		die_now(2);
	}
	char line[256];
	long n = 0, cap = 0;
	int version = 0;
	if (!fgets(line, sizeof line, f) || sscanf(line, "stdbg-decisions %d", &version) != 1 || version != 1) {
		raw_write(2, "stdbg: replay log: not a stdbg decision log (version 1)\n");
		die_now(2);
	}
	while (fgets(line, sizeof line, f)) {
		unsigned tid, kind;
		long long code;
		if (line[0] == '#' || line[0] == '\n') {
			/* Comments may be longer than the buffer: skip the rest. */
			while (!strchr(line, '\n') && fgets(line, sizeof line, f))
				;
			continue;
		}
		if (sscanf(line, "%u %u %lld", &tid, &kind, &code) != 3) {
			raw_write(2, "stdbg: replay log: malformed line\n");
			die_now(2);
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			g_log = realloc(g_log, (size_t)cap * sizeof *g_log);
			if (!g_log)
				fatal("out of memory");
		}
		g_log[n].tid = tid;
		g_log[n].kind = (uint16_t)kind;
		g_log[n].code = code;
		n++;
	}
	fclose(f);
	g_log_len = n;
	stdbg_replay_total = n;
}

/* stdbg_replay_diverged and stdbg_replay_end are called where the log
 * stops fitting or runs out; debuggers may break on them. */
EXPORT __attribute__((noinline, used)) void stdbg_replay_diverged(long step)
{
	__asm__ volatile("" ::"r"(step) : "memory");
}

EXPORT __attribute__((noinline, used)) void stdbg_replay_end(long step)
{
	__asm__ volatile("" ::"r"(step) : "memory");
}

static void __attribute__((noreturn)) replay_park(void)
{
	/* Nothing may run any more: keep every thread where it is, so that a
	 * debugger can look at the final state. */
	for (;;)
		pause();
}

static const char *kind_name(unsigned k)
{
	return k < STDBG_NUM_KINDS ? stdbg_kind_names[k] : "an unknown operation";
}

static void replay_next(uint32_t *tid, int64_t *code)
{
	char buf[256];
	if (g_log_pos >= g_log_len) {
		if (!g_log_quiet) {
			snprintf(buf, sizeof buf, "stdbg: end of the replayed schedule after %ld steps\n", g_log_len);
			raw_write(2, buf);
		}
		stdbg_replay_end(g_log_len);
		replay_park();
	}
	struct decision d = g_log[g_log_pos];
	long step = g_log_pos + 1;
	stdbg_replay_step = step;
	struct thr *t = d.tid > 0 && d.tid < MAXTHREADS ? threads[d.tid] : NULL;
	const char *why = NULL;
	if (d.tid == 0) {
		why = NULL;
	} else if (!t) {
		why = "does not exist";
	} else if (t->finished) {
		why = "has finished";
	} else if (t->pending_kind != d.kind) {
		why = "is at another operation";
	}
	if (why) {
		snprintf(buf, sizeof buf, "stdbg: replay diverged at step %ld: thread %u %s (the log expects %s, the thread is at %s)\n",
		         step, d.tid, why, kind_name(d.kind), t ? kind_name(t->pending_kind) : "nothing");
		raw_write(2, buf);
		stdbg_replay_diverged(step);
		replay_park();
	}
	g_log_pos++;
	*tid = d.tid;
	*code = d.code;
}

static void put_pending(struct thr *me, uint16_t kind, uint16_t api, const void *obj, const void *obj2,
                        int64_t arg, void *ra)
{
	uint64_t frames[MAXFRAMES];
	int n;
	if ((g_flags & STDBG_F_STACKS) && kind != K_THREAD_START && !(kind == K_THREAD_EXIT && api == A_RETURN)) {
		/* (A thread's start, and its return from its function, have
		 * no frame of their own: ra is its function, where they are
		 * shown.) */
		n = collect(frames, MAXFRAMES);
		if (n == 0)
			frames[n++] = (uint64_t)(uintptr_t)ra;
	} else {
		frames[0] = (uint64_t)(uintptr_t)ra;
		n = 1;
	}
	me->pending_kind = kind;
	me->pending_api = api;
	if (g_replay)
		return;
	struct stdbg_pending p = {0};
	p.tid = (uint32_t)me->tid;
	p.ostid = (uint32_t)me->ostid;
	p.kind = kind;
	p.api = api;
	p.nframes = (uint32_t)n;
	p.obj = (uint64_t)(uintptr_t)obj;
	p.obj2 = (uint64_t)(uintptr_t)obj2;
	p.arg = arg;
	up_hdr(M_PENDING, sizeof p + 8u * (uint32_t)n);
	up_put(&p, sizeof p);
	up_put(frames, 8u * (size_t)n);
}

/* handoff ends the current transition: the mailbox goes to the checker,
 * which names the thread that runs next and the result of its operation.
 * Returns this thread's result when it gets the turn back (a finished
 * thread does not wait). */
static int64_t handoff(struct thr *me)
{
	uint32_t tid;
	int64_t code;
	exchange(&tid, &code);
	if (tid == (uint32_t)me->tid && !me->finished) {
		stdbg_step(me->tid, (int)tid);
		return code;
	}
	if (tid == 0) /* nobody is left to run */
		return 0;
	struct thr *t = tid < MAXTHREADS ? threads[tid] : NULL;
	if (!t)
		fatal("the checker chose an unknown thread");
	t->result = code;
	/* The turn is given before the hook runs: a debugger stopped in the
	 * hook may freeze this thread (scheduler locking) and resume only the
	 * next one, which must then need nothing more from this one. */
	give_turn(t);
	stdbg_step(me->tid, (int)tid);
	if (me->finished)
		return 0;
	wait_turn(me);
	return me->result;
}

static int active(void)
{
	return g_enabled && !g_exiting && !in_runtime && self != NULL && !self->finished;
}

/* sched is the scheduling point: report the pending operation, then wait
 * until the checker lets this thread perform it; returns its result. */
static int64_t sched(uint16_t kind, uint16_t api, const void *obj, const void *obj2, int64_t arg, void *ra)
{
	struct thr *me = self;
	if (!g_started)
		server_start();
	if (g_flags & STDBG_F_STATE)
		note_sp(me, ra);
	put_pending(me, kind, api, obj, obj2, arg, ra);
	if (me->first) {
		/* A new thread's first report belongs to its creator's
		 * transition: tell the creator, then wait for a turn. */
		me->first = 0;
		__atomic_store_n(&me->started, 1, __ATOMIC_SEQ_CST);
		sys_futex(&me->started, FUTEX_WAKE_PRIVATE, 1, NULL);
		wait_turn(me);
		return me->result;
	}
	return handoff(me);
}

#define RA __builtin_return_address(0)
#define SCHED(kind, api, obj, obj2, arg) sched((kind), (api), (obj), (obj2), (int64_t)(arg), RA)

/* ------------------------------------------------------------------ */
/* Fork server                                                         */

struct modbuf {
	uint8_t *p;
	size_t len, cap;
	uint32_t n;
};

static void mb_put(struct modbuf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		size_t c = b->cap ? b->cap * 2 : 4096;
		while (c < b->len + n)
			c *= 2;
		b->p = realloc(b->p, c);
		if (!b->p)
			fatal("out of memory");
		b->cap = c;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static int add_module(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct modbuf *b = data;
	char path[PATH_MAX];
	const char *name = info->dlpi_name;
	if (!name || !*name) {
		ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
		if (n <= 0)
			return 0;
		path[n] = 0;
		name = path;
	}
	if (name[0] != '/')
		return 0; /* the vdso and friends have no file */
	uint64_t lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uint64_t a = info->dlpi_addr + ph->p_vaddr;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
	}
	if (hi == 0)
		return 0;
	uint64_t bias = info->dlpi_addr;
	uint32_t plen = (uint32_t)strlen(name);
	mb_put(b, &bias, 8);
	mb_put(b, &lo, 8);
	mb_put(b, &hi, 8);
	mb_put(b, &plen, 4);
	mb_put(b, name, plen);
	b->n++;
	return 0;
}

static void send_hello(void)
{
	struct modbuf mods = {0};
	dl_iterate_phdr(add_module, &mods);
	struct stdbg_hello h = {STDBG_PROTOCOL_VERSION, (uint32_t)getpid(), mods.n, 0};
	size_t total = sizeof(struct stdbg_msg_hdr) + sizeof h + mods.len;
	uint8_t *buf = malloc(total);
	if (!buf)
		fatal("out of memory");
	struct stdbg_msg_hdr mh = {M_HELLO, 0, (uint32_t)(sizeof h + mods.len)};
	memcpy(buf, &mh, sizeof mh);
	memcpy(buf + sizeof mh, &h, sizeof h);
	memcpy(buf + sizeof mh + sizeof h, mods.p, mods.len);
	if (send(g_ctl, buf, total, MSG_NOSIGNAL) != (ssize_t)total)
		die_now(70);
	free(buf);
	free(mods.p);
}

/* A child of the fork server: the execution of one generation. */
struct kid {
	pid_t pid;  /* 0: none */
	int pidfd;  /* -1 when the kernel has no pidfd_open */
	uint32_t gen;
	struct stdbg_slot *slot;
};

static struct kid g_kids[2]; /* indexed by generation parity */

static int pidfd_open_compat(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

/* reap waits for a child (blocking or not) and reports its death in its
 * slot. Returns 1 when the child is gone. */
static int reap(struct kid *k, int block)
{
	if (k->pid == 0)
		return 1;
	int status = 0;
	pid_t r;
	do
		r = waitpid(k->pid, &status, __WALL | (block ? 0 : WNOHANG));
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return 0;
	k->slot->dead_status = status;
	__atomic_store_n(&k->slot->dead_gen, k->gen, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&k->slot->up_seq, 1, __ATOMIC_SEQ_CST);
	sys_futex(&k->slot->up_seq, FUTEX_WAKE, INT_MAX, NULL);
	if (k->pidfd >= 0)
		close(k->pidfd);
	k->pid = 0;
	k->pidfd = -1;
	return 1;
}

/* server_start turns the process into the fork server and returns in a
 * child, as the execution the checker asked for.
 *
 * Generation g uses slot g % 2. The server forks generation g as soon as
 * the child of generation g-2 (the previous user of the slot) is reaped,
 * without waiting for generation g-1 to finish dying: the checker kills an
 * execution and asks for the next one at once, and the dying child's
 * teardown overlaps with the next fork. Deaths are noticed through pidfds. */
static void server_start(void)
{
	fflush(NULL);
	state_init();
	send_hello();
	g_server_pid = getpid();
	g_kids[0].pidfd = g_kids[1].pidfd = -1;
	for (;;) {
		struct pollfd fds[3];
		int nk = 0;
		struct kid *which[2];
		fds[0].fd = g_ctl;
		fds[0].events = POLLIN;
		for (int i = 0; i < 2; i++) {
			if (g_kids[i].pid != 0 && g_kids[i].pidfd >= 0) {
				fds[1 + nk].fd = g_kids[i].pidfd;
				fds[1 + nk].events = POLLIN;
				which[nk++] = &g_kids[i];
			}
		}
		if (poll(fds, (nfds_t)(1 + nk), -1) < 0) {
			if (errno == EINTR)
				continue;
			die_now(70);
		}
		for (int i = 0; i < nk; i++)
			if (fds[1 + i].revents)
				reap(which[i], 0);
		if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		uint8_t buf[64];
		ssize_t n = recv(g_ctl, buf, sizeof buf, 0);
		if (n <= 0) {
			for (int i = 0; i < 2; i++)
				if (g_kids[i].pid)
					kill(g_kids[i].pid, SIGKILL);
			die_now(0); /* the checker went away */
		}
		struct stdbg_msg_hdr h;
		if ((size_t)n < sizeof h)
			die_now(70);
		memcpy(&h, buf, sizeof h);
		if (h.type == M_QUIT)
			die_now(0);
		if (h.type != M_FORK || (size_t)n < sizeof h + sizeof(struct stdbg_fork))
			die_now(70);
		struct stdbg_fork f;
		memcpy(&f, buf + sizeof h, sizeof f);
		struct kid *k = &g_kids[f.gen & 1];
		reap(k, 1); /* the slot's previous user must be gone */
		struct stdbg_slot *slot = (struct stdbg_slot *)(g_mailbox + (size_t)(f.gen & 1) * STDBG_SLOT_SIZE);
		pid_t pid = real_fork();
		if (pid < 0)
			die_now(70);
		if (pid == 0) {
			for (int i = 0; i < 2; i++)
				if (g_kids[i].pidfd >= 0)
					close(g_kids[i].pidfd);
			g_started = 1;
			g_gen = f.gen;
			g_flags = f.flags;
			g_slot = slot;
			__atomic_store_n(&slot->pid, (uint32_t)getpid(), __ATOMIC_SEQ_CST);
			self->ostid = (pid_t)syscall(SYS_gettid);
			stdbg_thread_ostids[1] = self->ostid;
			if ((f.flags & STDBG_F_REUSE) && !g_state_env && __builtin_setjmp(g_reset_jb) == 0)
				reuse_snapshot();
			return;
		}
		k->pid = pid;
		k->gen = f.gen;
		k->slot = slot;
		k->pidfd = pidfd_open_compat(pid);
		if (k->pidfd < 0)
			reap(k, 1); /* no pidfds: wait for this child now */
	}
}

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
	size_t tid_off;
	size_t def_stack;
	uintptr_t brk;
	sigset_t mask;
	int fds[REUSE_MAX_FDS];
	int nfds;
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
	k->nfds = list_numbers("/proc/self/fd", k->fds, REUSE_MAX_FDS);
	if (k->nfds < 0)
		goto fail;
	qsort(k->fds, (size_t)k->nfds, sizeof k->fds[0], int_cmp);
	k->brk = (uintptr_t)syscall(SYS_brk, 0);
	pthread_sigmask(SIG_BLOCK, NULL, &k->mask);
	k->nmaps = read_maps(k->maps, REUSE_MAX_MAPS);
	if (k->nmaps < 0)
		goto fail;
	uintptr_t sp = ((uintptr_t)&here - 256) & ~(uintptr_t)63;
	/* Not saved: this library's keep (the kernel may have merged it with
	 * a neighbouring mapping), main's signal stack, and this library's
	 * tables of threads, which a reset clears itself. */
	struct saved skip[5];
	int nskip = 0;
	skip[nskip++] = (struct saved){(uintptr_t)k, (uintptr_t)k + sizeof *k, 0};
	if (self->altstack)
		skip[nskip++] = (struct saved){(uintptr_t)self->altstack, (uintptr_t)self->altstack + ALTSTACK_SIZE, 0};
	skip[nskip++] = (struct saved){(uintptr_t)threads, (uintptr_t)(threads + MAXTHREADS), 0};
	skip[nskip++] = (struct saved){(uintptr_t)stdbg_thread_ostids, (uintptr_t)(stdbg_thread_ostids + MAXTHREADS), 0};
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
		void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
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
	syscall(SYS_exit, 0);
	for (;;)
		;
}

static void __attribute__((noreturn)) reuse_refuse(void)
{
	die_now(REUSE_REFUSED);
}

static void reuse_restore(void) __attribute__((noreturn));

/* reuse_reset answers RESET, on the thread that received it. */
static void reuse_reset(struct thr *me)
{
	struct thr *m = threads[1];
	if (!reuse_possible())
		reuse_refuse();
	for (int i = 2; i <= nthreads; i++) {
		struct thr *t = threads[i];
		if (t && t != me && !t->finished) {
			t->die = 1;
			give_turn(t);
		}
	}
	if (me != m) {
		m->die = 2;
		give_turn(m);
		syscall(SYS_exit, 0);
		for (;;)
			;
	}
	reuse_restore();
}

static int region_cmp(const void *a, const void *b)
{
	const struct region *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
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
	qsort(k->known, (size_t)nk, sizeof k->known[0], region_cmp);
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
		if (!t || !t->have_pt)
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
	 * thread's id a little before the thread leaves the task list. */
	for (int tries = 0;; tries++) {
		int tasks = list_numbers("/proc/self/task", NULL, 0);
		if (tasks == 1)
			break;
		if (tasks < 0 || tries == 2000)
			reuse_refuse();
		syscall(SYS_sched_yield);
	}
	/* Descriptors: those of the snapshot must be open, others closed
	 * (this library's control socket aside). */
	int from = 0;
	for (int i = 0; i <= k->nfds; i++) {
		int fd = i < k->nfds ? k->fds[i] : INT_MAX;
		if (i < k->nfds && fcntl(fd, F_GETFD) < 0)
			reuse_refuse();
		if (g_ctl >= from && g_ctl < fd) {
			if (g_ctl > from)
				close_fds(from, g_ctl - 1);
			from = g_ctl + 1;
		}
		if (fd > from)
			close_fds(from, fd == INT_MAX ? ~0U : (unsigned)fd - 1);
		from = fd == INT_MAX ? fd : fd + 1;
	}
	syscall(SYS_brk, k->brk);
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

/* ------------------------------------------------------------------ */
/* Signals                                                             */

static void set_altstack(struct thr *t)
{
	void *p = reuse_altstack(t->tid);
	int kept = p != NULL;
	if (!kept) {
		p = mmap(NULL, ALTSTACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return;
	}
	stack_t ss = {.ss_sp = p, .ss_size = ALTSTACK_SIZE, .ss_flags = 0};
	if (sigaltstack(&ss, NULL) == 0)
		t->altstack = p;
	else if (!kept)
		munmap(p, ALTSTACK_SIZE);
}

static void on_fatal(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uint64_t frames[MAXFRAMES];
	int n = 0;
	uint64_t pc = 0;
#if defined(__x86_64__)
	pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
#endif
	if (g_started && !g_failed && !g_exiting) {
		uint64_t raw[MAXFRAMES];
		int m = collect(raw, MAXFRAMES);
		int from = -1;
		for (int i = 0; i < m; i++)
			if (raw[i] == pc) {
				from = i;
				break;
			}
		if (pc)
			frames[n++] = pc;
		for (int i = from < 0 ? 0 : from + 1; i < m && n < MAXFRAMES; i++)
			frames[n++] = raw[i];
		const char *what = strsignal(sig);
		report_failure(FAIL_SIGNAL, sig, (uint64_t)(uintptr_t)si->si_addr, frames, n, what, "", 0, "");
		if (g_flags & STDBG_F_FAST_EXIT)
			die_now(128 + sig);
	}
	signal(sig, SIG_DFL);
	if (sig == SIGABRT || si->si_code <= 0)
		raise(sig);
}

static void on_stack_request(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	if (!g_started || !self)
		return;
	uint64_t frames[MAXFRAMES];
	int n = collect(frames, MAXFRAMES);
	struct stdbg_stack st = {(uint32_t)self->tid, (uint32_t)n};
	up_hdr(M_STACK, sizeof st + 8u * (uint32_t)n);
	up_put(&st, sizeof st);
	up_put(frames, 8u * (size_t)n);
	up_flush();
}

static void install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, NULL);
	sa.sa_sigaction = on_stack_request;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigaction(SIGSTACK, &sa, NULL);
}

/* detach_child makes the child of a program's fork run free (see fork). */
static void detach_child(void)
{
	g_enabled = 0;
	g_detached = 1;
	if (g_ctl >= 0) {
		close(g_ctl);
		g_ctl = -1;
	}
	/* The library's crash handlers report to the checker: the child's
	 * crashes take their default course instead. */
	int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction cur;
		if (real_sigaction(sigs[i], NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_fatal) {
			struct sigaction dfl;
			memset(&dfl, 0, sizeof dfl);
			dfl.sa_handler = SIG_DFL;
			real_sigaction(sigs[i], &dfl, NULL);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Initialisation                                                      */

static int env_fd(const char *name)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return -1;
	char *end;
	long fd = strtol(v, &end, 10);
	if (*end || fd < 0 || fd > 1 << 20)
		return -1;
	return (int)fd;
}

/* move_fd puts a descriptor out of the program's way, close-on-exec. */
static int move_fd(int fd)
{
	int nfd = fcntl(fd, F_DUPFD_CLOEXEC, 900);
	if (nfd < 0)
		return fd;
	close(fd);
	return nfd;
}

__attribute__((constructor(101))) static void stdbg_init(void)
{
	resolve_all();
	resolve_tainting();
	Dl_info di;
	if (dladdr((void *)stdbg_init, &di) && di.dli_fbase) {
		/* Our text: from the load base to the end of this module's
		 * executable mapping; a generous upper bound is fine. */
		g_self_lo = (uintptr_t)di.dli_fbase;
		g_self_hi = g_self_lo + 4 * 1024 * 1024;
	}
	const char *log = getenv("STDBG_REPLAY");
	if (log && *log) {
		load_log(log);
		g_log_quiet = getenv("STDBG_REPLAY_QUIET") != NULL;
		unsetenv("STDBG_REPLAY");
		struct thr *m = thr_new(1);
		m->first = 0;
		m->ostid = (pid_t)syscall(SYS_gettid);
		m->pt = pthread_self();
		m->have_pt = 1;
		stdbg_thread_ostids[1] = m->ostid;
		self = m;
		g_replay = 1;
		g_started = 1; /* no fork server */
		g_enabled = 1;
		return;
	}
	int ctl = env_fd("STDBG_CTL");
	int mbfd = env_fd("STDBG_MAILBOX");
	if (ctl < 0 || mbfd < 0)
		return;
	const char *se = getenv("STDBG_STATE");
	g_state_env = se && strcmp(se, "1") == 0;
	unsetenv("STDBG_STATE");
	const char *cp = getenv("STDBG_CHECKER_PID");
	g_checker_pid = cp ? (pid_t)atoi(cp) : getppid();
	unsetenv("STDBG_CTL");
	unsetenv("STDBG_MAILBOX");
	unsetenv("STDBG_CHECKER_PID");
	g_ctl = move_fd(ctl);
	mbfd = move_fd(mbfd);
	void *p = mmap(NULL, 2 * STDBG_SLOT_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, mbfd, 0);
	close(mbfd);
	if (p == MAP_FAILED) {
		raw_write(2, "stdbg: cannot map the mailbox\n");
		die_now(70);
	}
	g_mailbox = p;
	{
		void *warm[4];
		backtrace(warm, 4); /* loads the unwinder now, not in a signal handler */
	}
	struct thr *main_thr = thr_new(1);
	main_thr->first = 0;
	main_thr->ostid = (pid_t)syscall(SYS_gettid);
	main_thr->pt = pthread_self();
	main_thr->have_pt = 1;
	self = main_thr;
	set_altstack(main_thr);
	install_signals();
	g_enabled = 1;
}

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
		if (t && t->joined && !t->reaped && t->have_pt) {
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
	return t->start(t->arg);
}

static void *thread_start(void *p)
{
	struct thr *t = p;
	self = t;
	t->ostid = (pid_t)syscall(SYS_gettid);
	if (t->tid < MAXTHREADS)
		stdbg_thread_ostids[t->tid] = t->ostid;
	set_altstack(t);
	/* The thread's start is a scheduling point of its own: its creator
	 * may go on first, as it may in a real run. */
	if (active())
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
	int rc = real_pthread_create(pt, reuse_attr(&kept, attr, (int)tid) ? &kept : attr, thread_start, t);
	if (rc != 0) {
		char buf[96];
		snprintf(buf, sizeof buf, "pthread_create failed: %s", strerror(rc));
		fatal(buf);
	}
	t->pt = *pt;
	t->have_pt = 1;
	/* The new thread runs to its first scheduling point within this
	 * transition; wait for it to report. */
	struct timespec ts = {0, LIFELINE_MS * 1000000L};
	while (!__atomic_load_n(&t->started, __ATOMIC_ACQUIRE)) {
		sys_futex(&t->started, FUTEX_WAIT_PRIVATE, 0, &ts);
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
		if (real_pthread_tryjoin_np(t->pt, NULL) == 0)
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
	if (active())
		finish(A_PTHREAD_EXIT, rv, RA);
	real_pthread_exit(rv);
}

/* pthread_self and pthread_equal need no interception: stdbg keeps the
 * real pthread_t of every thread, so the real functions stay correct. */

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

/* ------------------------------------------------------------------ */
/* Condition variables                                                 */

/* The checker's answer to a wait that wakes up spuriously at once, still
 * holding its mutex (syncmodel.SpuriousReturn): the wait returns 0. */
#define SPURIOUS_RETURN (-2)

static int cond_wait(pthread_cond_t *c, pthread_mutex_t *m, int timed, uint16_t api, void *ra)
{
	int64_t code = sched(K_COND_WAIT, api, c, m, mutex_type(m), ra);
	if (code == SPURIOUS_RETURN)
		return 0;
	if (code != 0)
		return (int)code;
	return (int)sched(K_COND_REACQUIRE, api, c, m, timed, ra);
}

EXPORT int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a)
{
	int rc = real_pthread_cond_init(c, a);
	if (rc != 0 || !active())
		return rc;
	return (int)SCHED(K_COND_INIT, A_PTHREAD_COND_INIT, c, NULL, 0);
}

EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	if (!active())
		return real_pthread_cond_wait(c, m);
	return cond_wait(c, m, 0, A_PTHREAD_COND_WAIT, RA);
}

EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *ts)
{
	if (!active())
		return real_pthread_cond_timedwait(c, m, ts);
	return cond_wait(c, m, 1, A_PTHREAD_COND_TIMEDWAIT, RA);
}

EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t k, const struct timespec *ts)
{
	if (!active())
		return real_pthread_cond_clockwait(c, m, k, ts);
	return cond_wait(c, m, 1, A_PTHREAD_COND_CLOCKWAIT, RA);
}

EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
	if (!active())
		return real_pthread_cond_signal(c);
	return (int)SCHED(K_COND_SIGNAL, A_PTHREAD_COND_SIGNAL, c, NULL, 0);
}

EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
	if (!active())
		return real_pthread_cond_broadcast(c);
	return (int)SCHED(K_COND_BROADCAST, A_PTHREAD_COND_BROADCAST, c, NULL, 0);
}

EXPORT int pthread_cond_destroy(pthread_cond_t *c)
{
	if (!active())
		return real_pthread_cond_destroy(c);
	return (int)SCHED(K_COND_DESTROY, A_PTHREAD_COND_DESTROY, c, NULL, 0);
}

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

/* ------------------------------------------------------------------ */
/* Barriers, spin locks, once                                          */

EXPORT int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *a, unsigned count)
{
	if (!active())
		return real_pthread_barrier_init(b, a, count);
	return (int)SCHED(K_BARRIER_INIT, A_PTHREAD_BARRIER_INIT, b, NULL, count);
}

EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
	if (!active())
		return real_pthread_barrier_wait(b);
	void *ra = RA;
	int64_t code = sched(K_BARRIER_WAIT, A_PTHREAD_BARRIER_WAIT, b, NULL, 0, ra);
	if (code == -1)
		return PTHREAD_BARRIER_SERIAL_THREAD;
	if (code != 0)
		return (int)code;
	return (int)sched(K_BARRIER_LEAVE, A_PTHREAD_BARRIER_WAIT, b, NULL, 0, ra);
}

EXPORT int pthread_barrier_destroy(pthread_barrier_t *b)
{
	if (!active())
		return real_pthread_barrier_destroy(b);
	return (int)SCHED(K_BARRIER_DESTROY, A_PTHREAD_BARRIER_DESTROY, b, NULL, 0);
}

#define SPINFN(name, kind, api)                                                                             \
	EXPORT int pthread_spin_##name(pthread_spinlock_t *l)                                               \
	{                                                                                                   \
		if (!active())                                                                              \
			return real_pthread_spin_##name(l);                                                 \
		return (int)SCHED(kind, api, (const void *)l, NULL, 0);                                     \
	}

SPINFN(lock, K_SPIN_LOCK, A_PTHREAD_SPIN_LOCK)
SPINFN(trylock, K_SPIN_TRYLOCK, A_PTHREAD_SPIN_TRYLOCK)
SPINFN(unlock, K_SPIN_UNLOCK, A_PTHREAD_SPIN_UNLOCK)
SPINFN(destroy, K_SPIN_DESTROY, A_PTHREAD_SPIN_DESTROY)

EXPORT int pthread_spin_init(pthread_spinlock_t *l, int pshared)
{
	int rc = real_pthread_spin_init(l, pshared);
	if (rc != 0 || !active())
		return rc;
	return (int)SCHED(K_SPIN_INIT, A_PTHREAD_SPIN_INIT, (const void *)l, NULL, 0);
}

/* glibc marks a finished once control with this bit; a control completed
 * by a real call before stdbg took over (the unwinder's, libstdc++'s) is
 * left alone. */
#define ONCE_DONE 2

static void do_once(int *o, void (*fn)(void), uint16_t api, void *ra)
{
	if (__atomic_load_n(o, __ATOMIC_ACQUIRE) & ONCE_DONE)
		return;
	if (sched(K_ONCE_BEGIN, api, o, NULL, 0, ra) == 1) {
		fn();
		sched(K_ONCE_END, api, o, NULL, 0, ra);
		__atomic_store_n(o, ONCE_DONE, __ATOMIC_RELEASE);
	}
}

EXPORT int pthread_once(pthread_once_t *o, void (*fn)(void))
{
	if (!active())
		return real_pthread_once(o, fn);
	do_once((int *)o, fn, A_PTHREAD_ONCE, RA);
	return 0;
}

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

/* ------------------------------------------------------------------ */
/* Process exit and failures                                           */

static void do_exit(int status, uint16_t api, void *ra)
{
	sched(K_EXIT, api, NULL, NULL, status, ra);
	if (g_flags & STDBG_F_FAST_EXIT)
		die_now(status);
	g_exiting = 1;
}

/* glibc calls exit() from inside libc when main returns, out of the
 * interposer's reach, so main itself is wrapped. */
static int (*user_main)(int, char **, char **);

static int main_hook(int argc, char **argv, char **envp)
{
	int r = user_main(argc, argv, envp);
	if (active())
		do_exit(r, A_RETURN_FROM_MAIN, (char *)user_main + 1);
	return r;
}

EXPORT int __libc_start_main(int (*main)(int, char **, char **), int argc, char **argv, void (*init)(void),
                             void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
	int (*real)(int (*)(int, char **, char **), int, char **, void (*)(void), void (*)(void), void (*)(void),
	            void *);
	*(void **)&real = dlsym(RTLD_NEXT, "__libc_start_main");
	user_main = main;
	return real(main_hook, argc, argv, init, fini, rtld_fini, stack_end);
}

EXPORT void exit(int status)
{
	if (active())
		do_exit(status, A_EXIT, RA);
	real_exit(status);
}

EXPORT void _exit(int status)
{
	if (active())
		do_exit(status, A__EXIT, RA);
	real__exit(status);
}

/* exec: the checked program's image ends there, as at exit (the new
 * image is not followed: it starts without the checker's descriptors, so
 * the library in it stays inert, and it runs free). The call is taken to
 * succeed when the file can be executed; one that cannot be fails as
 * usual and the program goes on under the checker. During a search the
 * process ends at once; in a replay the new image really runs. */
static int (*real_execve)(const char *, char *const[], char *const[]);
static int (*real_execv)(const char *, char *const[]);
static int (*real_execvp)(const char *, char *const[]);
static int (*real_execvpe)(const char *, char *const[], char *const[]);
static int (*real_fexecve)(int, char *const[], char *const[]);

/* executable reports whether file names something exec could start:
 * with a slash, that file; without, a file of that name on PATH. */
static int executable(const char *file, int search)
{
	if (!file || !*file)
		return 0;
	if (!search || strchr(file, '/'))
		return access(file, X_OK) == 0;
	const char *path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";
	char buf[PATH_MAX];
	for (const char *p = path;;) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n + 1 + strlen(file) + 1 <= sizeof buf) {
			memcpy(buf, n ? p : ".", n ? n : 1);
			size_t k = n ? n : 1;
			buf[k] = '/';
			strcpy(buf + k + 1, file);
			if (access(buf, X_OK) == 0)
				return 1;
		}
		if (!end)
			return 0;
		p = end + 1;
	}
}

static void exec_ends(const char *file, int search, void *ra)
{
	if (active() && executable(file, search))
		do_exit(0, A_EXEC, ra);
}

#define RESOLVE_ONCE(name)                                                  \
	do {                                                                    \
		if (!real_##name)                                               \
			RESOLVE(name);                                          \
	} while (0)

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	RESOLVE_ONCE(execve);
	exec_ends(path, 0, RA);
	return real_execve(path, argv, envp);
}

EXPORT int execv(const char *path, char *const argv[])
{
	RESOLVE_ONCE(execv);
	exec_ends(path, 0, RA);
	return real_execv(path, argv);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	RESOLVE_ONCE(execvp);
	exec_ends(file, 1, RA);
	return real_execvp(file, argv);
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	RESOLVE_ONCE(execvpe);
	exec_ends(file, 1, RA);
	return real_execvpe(file, argv, envp);
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	RESOLVE_ONCE(fexecve);
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	exec_ends(proc, 0, RA);
	return real_fexecve(fd, argv, envp);
}

/* The execl family: their arguments gathered into an array (at most
 * EXECL_MAX of them, as a shell would refuse far fewer). */
#define EXECL_MAX 4096

static int gather(const char *arg, va_list ap, char **argv, char ***envp)
{
	int n = 0;
	argv[n++] = (char *)arg;
	while (arg) {
		if (n == EXECL_MAX) {
			errno = E2BIG;
			return -1;
		}
		arg = va_arg(ap, const char *);
		argv[n++] = (char *)arg;
	}
	if (envp)
		*envp = va_arg(ap, char **);
	return 0;
}

EXPORT int execl(const char *path, const char *arg, ...)
{
	char *argv[EXECL_MAX + 1];
	va_list ap;
	va_start(ap, arg);
	int r = gather(arg, ap, argv, NULL);
	va_end(ap);
	if (r < 0)
		return -1;
	RESOLVE_ONCE(execve);
	exec_ends(path, 0, RA);
	return real_execve(path, argv, environ);
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	char *argv[EXECL_MAX + 1];
	char **envp;
	va_list ap;
	va_start(ap, arg);
	int r = gather(arg, ap, argv, &envp);
	va_end(ap);
	if (r < 0)
		return -1;
	RESOLVE_ONCE(execve);
	exec_ends(path, 0, RA);
	return real_execve(path, argv, envp);
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	char *argv[EXECL_MAX + 1];
	va_list ap;
	va_start(ap, arg);
	int r = gather(arg, ap, argv, NULL);
	va_end(ap);
	if (r < 0)
		return -1;
	RESOLVE_ONCE(execvp);
	exec_ends(file, 1, RA);
	return real_execvp(file, argv);
}

EXPORT void abort(void)
{
	if (active()) {
		uint64_t frames[MAXFRAMES];
		int n = collect(frames, MAXFRAMES);
		report_failure(FAIL_ABORT, SIGABRT, 0, frames, n, "abort() called", "", 0, "");
		if (g_flags & STDBG_F_FAST_EXIT)
			failure_exit(134);
		g_exiting = 1;
	}
	real_abort();
}

EXPORT void __assert_fail(const char *expr, const char *file, unsigned line, const char *func)
{
	if (active()) {
		uint64_t frames[MAXFRAMES];
		int n = collect(frames, MAXFRAMES);
		report_failure(FAIL_ASSERT, SIGABRT, 0, frames, n, expr, file, line, func);
		if (g_flags & STDBG_F_FAST_EXIT)
			failure_exit(134);
		g_exiting = 1;
	}
	real_assert_fail(expr, file, line, func);
}

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

/* ------------------------------------------------------------------ */
/* Annotations (stdbg.h finds these with dlsym)                        */

/* The annotations of stdbg.h pass the address they return to (the _at
 * forms), the line of the user's code; the plain forms are for callers
 * of an earlier stdbg.h. */
EXPORT void stdbg_rt_yield_at(void *ra)
{
	if (active())
		sched(K_YIELD, A_STDBG_YIELD, NULL, NULL, 0, ra);
}

EXPORT void stdbg_rt_read_at(const void *addr, unsigned long size, void *ra)
{
	if (active())
		sched(K_READ, A_STDBG_READ, addr, NULL, (int64_t)size, ra);
}

EXPORT void stdbg_rt_write_at(const void *addr, unsigned long size, void *ra)
{
	if (active())
		sched(K_WRITE, A_STDBG_WRITE, addr, NULL, (int64_t)size, ra);
}

EXPORT void stdbg_rt_atomic_read_at(const void *addr, unsigned long size, void *ra)
{
	if (active())
		sched(K_READ, A_STDBG_ATOMIC_READ, addr, NULL, (int64_t)size, ra);
}

EXPORT void stdbg_rt_atomic_write_at(const void *addr, unsigned long size, void *ra)
{
	if (active())
		sched(K_WRITE, A_STDBG_ATOMIC_WRITE, addr, NULL, (int64_t)size, ra);
}

/* Memory accesses of programs built with the compiler's thread-sanitizer
 * instrumentation (stdbg_tsan.c forwards them here). An access is a
 * scheduling point when more than one thread lives and it touches memory
 * that threads share by default: the program's own global and static
 * variables, and the heap. Accesses to stacks, to thread-local storage and
 * to the data of libraries are not; neither is anything before the first
 * thread starts or after the last one was joined. The rule depends only
 * on the schedule, so replay meets the same points. */
enum { MEM_READ, MEM_WRITE, MEM_ATOMIC_LOAD, MEM_ATOMIC_STORE, MEM_ATOMIC_RMW };

#define MAX_DATA_SEGS 8
static uintptr_t g_data_lo[MAX_DATA_SEGS], g_data_hi[MAX_DATA_SEGS];
static int g_ndata = -1;
static uintptr_t g_heap_lo;

static int main_data(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size, (void)data;
	for (int i = 0; i < info->dlpi_phnum && g_ndata < MAX_DATA_SEGS; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W)) {
			g_data_lo[g_ndata] = info->dlpi_addr + ph->p_vaddr;
			g_data_hi[g_ndata] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
			g_ndata++;
		}
	}
	return 1; /* the main program comes first */
}

/* heap_start returns where the program's break started (field start_brk
 * of /proc/self/stat), 0 if unknown. */
static uintptr_t heap_start(void)
{
	char buf[1024];
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	char *p = strrchr(buf, ')'); /* after the command's name: field 3 */
	if (!p)
		return 0;
	p++;
	for (int field = 3; field < 47 && p; field++)
		p = strchr(p + 1, ' ');
	return p ? (uintptr_t)strtoull(p + 1, NULL, 10) : 0;
}

static int shared_memory(uintptr_t a)
{
	if (g_ndata < 0) {
		in_runtime++;
		g_ndata = 0;
		dl_iterate_phdr(main_data, NULL);
		g_heap_lo = heap_start();
		in_runtime--;
	}
	for (int i = 0; i < g_ndata; i++)
		if (a >= g_data_lo[i] && a < g_data_hi[i])
			return 1;
	uintptr_t brk_now = (uintptr_t)sbrk(0);
	return g_heap_lo && a >= g_heap_lo && a < brk_now;
}

static int several_threads(void)
{
	int live = 0;
	for (int i = 1; i <= nthreads && live < 2; i++)
		if (threads[i] && !threads[i]->finished)
			live++;
	return live > 1;
}

EXPORT void stdbg_rt_mem(const volatile void *addr, unsigned long size, int kind, void *ra)
{
	if (!active() || !several_threads() || !shared_memory((uintptr_t)addr))
		return;
	static const uint16_t api[] = {A_LOAD, A_STORE, A___ATOMIC_LOAD, A___ATOMIC_STORE, A___ATOMIC_RMW};
	if (kind < MEM_READ || kind > MEM_ATOMIC_RMW)
		return;
	uint16_t k = kind == MEM_READ || kind == MEM_ATOMIC_LOAD ? K_READ : K_WRITE;
	sched(k, api[kind], (const void *)addr, NULL, (int64_t)size, ra);
}

EXPORT int stdbg_rt_choose_at(int n, void *ra)
{
	if (n <= 1 || !active())
		return 0;
	return (int)sched(K_CHOOSE, A_STDBG_CHOOSE, NULL, NULL, n, ra);
}

EXPORT void stdbg_rt_yield(void)
{
	stdbg_rt_yield_at(RA);
}

EXPORT void stdbg_rt_read(const void *addr, unsigned long size)
{
	stdbg_rt_read_at(addr, size, RA);
}

EXPORT void stdbg_rt_write(const void *addr, unsigned long size)
{
	stdbg_rt_write_at(addr, size, RA);
}

EXPORT int stdbg_rt_choose(int n)
{
	return stdbg_rt_choose_at(n, RA);
}

EXPORT void stdbg_rt_assert_fail(const char *msg, const char *file, unsigned line, const char *func)
{
	if (active()) {
		uint64_t frames[MAXFRAMES];
		int n = collect(frames, MAXFRAMES);
		report_failure(FAIL_USER, 0, 0, frames, n, msg, file, line, func);
		if (g_flags & STDBG_F_FAST_EXIT)
			failure_exit(134);
		g_exiting = 1;
	}
	char buf[512];
	snprintf(buf, sizeof buf, "%s:%u: %s: stdbg_assert failed: %s\n", file, line, func, msg);
	raw_write(2, buf);
	real_abort();
}

EXPORT int stdbg_rt_active(void)
{
	return active();
}

/* ------------------------------------------------------------------ */
/* Program state, for stateful search (STDBG_F_STATE)                 */
/*
 * At every hand-over of an execution forked with STDBG_F_STATE the
 * library sends M_STATE: a hash of the program's own memory, whether the
 * program marked progress, and its propositions. The checker adds each
 * thread's position and the synchronization model's state.
 *
 * What is hashed, and what is left out:
 *  - globals: the writable PT_LOAD segments (.data, .bss) of the
 *    executable and of libraries outside the system directories; the
 *    system libraries' writable data (malloc arenas, stdio state, the
 *    dynamic linker's tables) is bookkeeping whose visible part is the heap
 *    and the sync model, and this library's own memory is never hashed;
 *  - the heap: the blocks the program has allocated and not freed, each as
 *    address, size and bytes. With STDBG_STATE=1 in the environment the
 *    library tracks blocks from the start and fills new blocks with zeros,
 *    so bytes never written are zeros on every path to a state, and freed
 *    memory (allocator metadata, stale contents) does not count;
 *  - stacks: each live thread's stack from the caller of its pending
 *    operation (the library's own frames below are left out) up to the
 *    frame that started the thread (the top of the stack for main): the
 *    thread descriptor and TLS above it hold the kernel thread id.
 * Registers are not hashed: at -O0 (stdbg cc) every variable lives in
 * memory. A block that the C library resizes or frees from inside (getline
 * growing the caller's buffer) is not seen: its old entry stays in the
 * table and is hashed as it is. Thread-local variables and kernel state (files, pipes) are not
 * hashed either: two states that differ only there are taken as the same.
 */

/* g_state_env (STDBG_STATE=1, declared above): track the heap, know the main stack. */
static int g_progress;    /* stdbg_progress() since the last hand-over */
static int g_state_debug; /* STDBG_STATE_DEBUG=1: print the parts of each state hash on stderr */

struct range {
	uintptr_t lo, hi;
};
#define MAXRANGES 64
static struct range g_globals[MAXRANGES];
static int g_nglobals;

/* The dynamic linker's text: its allocations (threads' TLS vectors) are its
 * bookkeeping, and a finishing thread frees them while the next one runs,
 * so they are not tracked as the program's heap. */
static uintptr_t g_rtld_lo, g_rtld_hi;

#define MAXPROPS 64
static const char *g_prop_names[MAXPROPS];
static const volatile int *g_prop_addrs[MAXPROPS];
static int g_nprops;

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

static uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const uint8_t *b = p;
	uint64_t h = mix64(seed ^ (uint64_t)n);
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, b, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
		b += 8;
		n -= 8;
	}
	uint64_t w = 0;
	memcpy(&w, b, n);
	return mix64(h ^ w);
}

static int is_system_path(const char *p)
{
	return strncmp(p, "/lib/", 5) == 0 || strncmp(p, "/lib64/", 7) == 0 || strncmp(p, "/usr/lib/", 9) == 0 ||
	       strncmp(p, "/usr/lib64/", 11) == 0 || strncmp(p, "/usr/local/lib/", 15) == 0;
}

static int add_globals(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	const char *name = info->dlpi_name;
	if (name && strstr(name, "/ld-linux")) {
		for (int i = 0; i < info->dlpi_phnum; i++) {
			const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
			if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
				continue;
			g_rtld_lo = info->dlpi_addr + ph->p_vaddr;
			g_rtld_hi = g_rtld_lo + ph->p_memsz;
		}
		return 0;
	}
	int exe = !name || !*name;
	if (!exe && (name[0] != '/' || is_system_path(name)))
		return 0;
	if (info->dlpi_addr != 0 && info->dlpi_addr == g_self_lo)
		return 0; /* this library */
	for (int i = 0; i < info->dlpi_phnum && g_nglobals < MAXRANGES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (lo <= (uintptr_t)&g_nglobals && (uintptr_t)&g_nglobals < lo + ph->p_memsz)
			return 0; /* this library, whatever its name */
		g_globals[g_nglobals].lo = lo;
		g_globals[g_nglobals].hi = lo + ph->p_memsz;
		g_nglobals++;
	}
	return 0;
}

/* stack_top finds the top (highest address) of the main thread's stack;
 * other threads record the frame of their start routine (thread_start). */
static void stack_top(struct thr *t)
{
	if (t->stack_hi || !t->have_pt)
		return;
	pthread_attr_t a;
	in_runtime++;
	if (pthread_getattr_np(t->pt, &a) == 0) {
		void *addr;
		size_t size;
		if (pthread_attr_getstack(&a, &addr, &size) == 0)
			t->stack_hi = (uintptr_t)addr + size;
		pthread_attr_destroy(&a);
	}
	in_runtime--;
}

/* note_sp records where the user's part of the calling thread's stack
 * begins: the stack pointer of the code that called the intercepted
 * function whose return address is ra, found by walking the frame
 * pointers of this library's frames (it is built with them). */
static __attribute__((noinline)) void note_sp(struct thr *me, void *ra)
{
	uintptr_t *fp = __builtin_frame_address(0);
	uintptr_t lo = (uintptr_t)fp;
	/* No caller found (a thread returning from its start routine, main
	 * returning: ra names the function, not a call): the user's frames
	 * are gone, nothing of the stack is hashed. */
	me->sp = me->stack_hi;
	for (int i = 0; i < 16 && fp; i++) {
		if ((uintptr_t)fp < lo || (me->stack_hi && (uintptr_t)fp >= me->stack_hi))
			break;
		if (fp[1] == (uintptr_t)ra) {
			me->sp = (uintptr_t)(fp + 2);
			return;
		}
		uintptr_t *up = (uintptr_t *)fp[0];
		if (up <= fp)
			break;
		fp = up;
	}
}

/* ---- heap blocks: an open-addressing table in this library's own memory */

struct block {
	uintptr_t p; /* 0: empty */
	size_t n;
};
static struct block *g_blocks;
static size_t g_bcap, g_bcount;
static int g_block_lock;

static void block_lock(void)
{
	while (__atomic_exchange_n(&g_block_lock, 1, __ATOMIC_ACQUIRE))
		cpu_relax();
}

static void block_unlock(void)
{
	__atomic_store_n(&g_block_lock, 0, __ATOMIC_RELEASE);
}

static size_t block_slot(uintptr_t p, size_t cap)
{
	return (size_t)(mix64(p) & (cap - 1));
}

static void block_grow(void)
{
	size_t ncap = g_bcap ? g_bcap * 2 : 4096;
	struct block *nb = mmap(NULL, ncap * sizeof *nb, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (nb == MAP_FAILED)
		return;
	for (size_t i = 0; i < g_bcap; i++) {
		if (!g_blocks[i].p)
			continue;
		size_t j = block_slot(g_blocks[i].p, ncap);
		while (nb[j].p)
			j = (j + 1) & (ncap - 1);
		nb[j] = g_blocks[i];
	}
	if (g_blocks)
		munmap(g_blocks, g_bcap * sizeof *g_blocks);
	g_blocks = nb;
	g_bcap = ncap;
}

static void block_add(void *ptr, size_t n)
{
	if (!ptr)
		return;
	block_lock();
	if ((g_bcount + 1) * 2 > g_bcap)
		block_grow();
	if (g_bcap) {
		uintptr_t p = (uintptr_t)ptr;
		size_t j = block_slot(p, g_bcap);
		while (g_blocks[j].p && g_blocks[j].p != p)
			j = (j + 1) & (g_bcap - 1);
		if (!g_blocks[j].p)
			g_bcount++;
		g_blocks[j].p = p;
		g_blocks[j].n = n;
	}
	block_unlock();
}

/* block_del forgets ptr and returns its size (0 if unknown). */
static size_t block_del(void *ptr)
{
	if (!ptr || !g_bcap)
		return 0;
	block_lock();
	uintptr_t p = (uintptr_t)ptr;
	size_t mask = g_bcap - 1, j = block_slot(p, g_bcap), n = 0;
	while (g_blocks[j].p && g_blocks[j].p != p)
		j = (j + 1) & mask;
	if (g_blocks[j].p) {
		n = g_blocks[j].n;
		g_blocks[j].p = 0;
		g_bcount--;
		/* Backward-shift deletion keeps probe chains intact. */
		size_t i = j;
		for (size_t k = (j + 1) & mask; g_blocks[k].p; k = (k + 1) & mask) {
			size_t home = block_slot(g_blocks[k].p, g_bcap);
			if (((k - home) & mask) >= ((k - i) & mask)) {
				g_blocks[i] = g_blocks[k];
				g_blocks[k].p = 0;
				i = k;
			}
		}
	}
	block_unlock();
	return n;
}

/* ---- the allocator's entry points. Before the real ones are known (the
 * dynamic linker's own lookups may allocate) a small static arena serves. */

static void *(*real_malloc)(size_t);
static void (*real_free)(void *);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);

static _Alignas(16) uint8_t g_boot[64 * 1024];
static size_t g_boot_used;
static int g_alloc_resolving;

/* boot_range tells reuse where the boot arena lies: it only serves while
 * the library starts, so a reset has nothing to restore there. */
static void boot_range(uintptr_t *lo, uintptr_t *hi)
{
	*lo = (uintptr_t)g_boot;
	*hi = (uintptr_t)(g_boot + sizeof g_boot);
}

static int boot_ptr(const void *p)
{
	return (const uint8_t *)p >= g_boot && (const uint8_t *)p < g_boot + sizeof g_boot;
}

static void *boot_alloc(size_t n)
{
	size_t need = (n + 16 + 15) & ~(size_t)15;
	if (g_boot_used + need > sizeof g_boot)
		return NULL;
	uint8_t *p = g_boot + g_boot_used + 16;
	memcpy(p - 16, &n, sizeof n);
	g_boot_used += need;
	return p;
}

static int alloc_ready(void)
{
	if (real_malloc)
		return 1;
	if (g_alloc_resolving)
		return 0;
	g_alloc_resolving = 1;
	RESOLVE(malloc);
	RESOLVE(free);
	RESOLVE(calloc);
	RESOLVE(realloc);
	RESOLVE(posix_memalign);
	RESOLVE(aligned_alloc);
	RESOLVE(memalign);
	g_alloc_resolving = 0;
	return real_malloc != NULL;
}

static inline int tracking(void *ra)
{
	if (!g_state_env || g_exiting)
		return 0;
	uintptr_t caller = (uintptr_t)ra;
	return !(caller >= g_rtld_lo && caller < g_rtld_hi);
}

EXPORT void *malloc(size_t n)
{
	if (!alloc_ready())
		return boot_alloc(n);
	void *p = real_malloc(n);
	if (p && tracking(RA)) {
		memset(p, 0, n);
		block_add(p, n);
	}
	return p;
}

EXPORT void free(void *p)
{
	if (!p || boot_ptr(p))
		return;
	if (!alloc_ready())
		return;
	if (g_state_env)
		block_del(p);
	real_free(p);
}

EXPORT void *calloc(size_t a, size_t b)
{
	if (!alloc_ready()) {
		if (b && a > SIZE_MAX / b)
			return NULL;
		return boot_alloc(a * b); /* static memory is zero */
	}
	void *p = real_calloc(a, b);
	if (p && tracking(RA))
		block_add(p, a * b);
	return p;
}

EXPORT void *realloc(void *old, size_t n)
{
	if (old && boot_ptr(old)) {
		size_t was;
		memcpy(&was, (uint8_t *)old - 16, sizeof was);
		void *p = malloc(n);
		if (p)
			memcpy(p, old, was < n ? was : n);
		return p;
	}
	if (!alloc_ready())
		return boot_alloc(n);
	size_t was = g_state_env ? block_del(old) : 0;
	void *p = real_realloc(old, n);
	if (!p) {
		if (old && was)
			block_add(old, was); /* realloc failed: the old block lives */
		return p;
	}
	if (tracking(RA)) {
		if (n > was)
			memset((uint8_t *)p + was, 0, n - was);
		block_add(p, n);
	}
	return p;
}

EXPORT void *reallocarray(void *old, size_t a, size_t b)
{
	if (b && a > SIZE_MAX / b) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(old, a * b);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	if (!alloc_ready())
		return ENOMEM;
	int rc = real_posix_memalign(out, align, n);
	if (rc == 0 && tracking(RA)) {
		memset(*out, 0, n);
		block_add(*out, n);
	}
	return rc;
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	if (!alloc_ready())
		return NULL;
	void *p = real_aligned_alloc(align, n);
	if (p && tracking(RA)) {
		memset(p, 0, n);
		block_add(p, n);
	}
	return p;
}

EXPORT void *memalign(size_t align, size_t n)
{
	if (!alloc_ready())
		return NULL;
	void *p = real_memalign(align, n);
	if (p && tracking(RA)) {
		memset(p, 0, n);
		block_add(p, n);
	}
	return p;
}

/* state_init runs once in the fork server when STDBG_STATE=1. */
static void state_init(void)
{
	if (!g_state_env)
		return;
	dl_iterate_phdr(add_globals, NULL);
	stack_top(threads[1]);
	g_state_debug = getenv("STDBG_STATE_DEBUG") != NULL;
}

static uint64_t state_hash(void)
{
	uint64_t h = 0x5374646267ull;
	for (int i = 0; i < g_nglobals; i++)
		h = mix64(h ^ hash_bytes((void *)g_globals[i].lo, g_globals[i].hi - g_globals[i].lo, g_globals[i].lo));
	for (int i = 1; i <= nthreads; i++) {
		struct thr *t = threads[i];
		if (!t || t->finished || !t->sp)
			continue;
		if (t->stack_hi > t->sp && t->stack_hi - t->sp < (64u << 20))
			h = mix64(h ^ hash_bytes((void *)t->sp, t->stack_hi - t->sp, (uint64_t)i));
	}
	if (g_state_debug) {
		char b[256];
		snprintf(b, sizeof b, "globals+stacks %llx nblocks %zu\n", (unsigned long long)h, g_bcount);
		raw_write(2, b);
		for (int i = 1; i <= nthreads; i++) {
			struct thr *t = threads[i];
			if (!t || t->finished || !t->sp)
				continue;
			snprintf(b, sizeof b, " t%d %lx..%lx %llx\n", i, t->sp, t->stack_hi, (unsigned long long)hash_bytes((void *)t->sp, t->stack_hi - t->sp, 1));
			raw_write(2, b);
		}
	}
	if (g_bcap) {
		uint64_t heap = 0;
		block_lock();
		for (size_t i = 0; i < g_bcap; i++) {
			if (!g_blocks[i].p)
				continue;
			if (g_blocks[i].n >= (64u << 10)) {
				/* A large block lives in a mapping of its own: if the C
				 * library freed it from inside, the mapping is gone. */
				uintptr_t lo = g_blocks[i].p & ~(uintptr_t)4095;
				if (madvise((void *)lo, g_blocks[i].p + g_blocks[i].n - lo, MADV_NORMAL) != 0)
					continue;
			}
			heap += hash_bytes((void *)g_blocks[i].p, g_blocks[i].n, g_blocks[i].p);
			if (g_state_debug) {
				char b[128];
				snprintf(b, sizeof b, " block %lx+%zu %llx\n", (unsigned long)g_blocks[i].p, g_blocks[i].n,
				         (unsigned long long)hash_bytes((void *)g_blocks[i].p, g_blocks[i].n, g_blocks[i].p));
				raw_write(2, b);
			}
		}
		block_unlock();
		h = mix64(h ^ heap);
	}
	return h;
}

/* put_state appends M_STATE to the messages of the current hand-over. */
static void put_state(void)
{
	struct stdbg_state st = {0};
	st.hash = state_hash();
	st.flags = g_progress ? 1u : 0u;
	st.nprops = (uint32_t)g_nprops;
	g_progress = 0;
	uint32_t len = sizeof st;
	for (int i = 0; i < g_nprops; i++)
		len += 8 + (uint32_t)strnlen(g_prop_names[i], 255);
	up_hdr(M_STATE, len);
	up_put(&st, sizeof st);
	for (int i = 0; i < g_nprops; i++) {
		int32_t v = *g_prop_addrs[i];
		uint16_t nl[2] = {(uint16_t)strnlen(g_prop_names[i], 255), 0};
		up_put(&v, 4);
		up_put(nl, 4);
		up_put(g_prop_names[i], nl[0]);
	}
}

EXPORT void stdbg_rt_progress(void)
{
	if (active())
		g_progress = 1;
}

EXPORT void stdbg_rt_prop(const char *name, const volatile int *addr)
{
	if (!name || !addr)
		return;
	for (int i = 0; i < g_nprops; i++) {
		if (strcmp(g_prop_names[i], name) == 0) {
			g_prop_addrs[i] = addr;
			return;
		}
	}
	if (g_nprops < MAXPROPS) {
		g_prop_names[g_nprops] = name;
		g_prop_addrs[g_nprops] = addr;
		g_nprops++;
	}
}
