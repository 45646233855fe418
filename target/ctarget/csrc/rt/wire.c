/* rt/wire.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns the library's side of the wire: the mailbox shared with the checker
 * (stdbg_wire.h, docs/protocol.md), the stack frames sent with each
 * operation, and the turns: a thread reports its pending operation and
 * waits until the checker picks it (sched, handoff).
 */

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

/* my_cpu is 1 + the CPU this thread runs on (0: unknown); glibc reads it
 * from the thread's rseq area, without a system call. */
static uint32_t my_cpu(void)
{
	int c = sched_getcpu();
	return c < 0 ? 0 : (uint32_t)c + 1;
}

static void up_flush(void)
{
	struct stdbg_slot *s = g_slot;
	__atomic_store_n(&s->runtime_cpu, my_cpu(), __ATOMIC_RELAXED);
	__atomic_store_n(&s->up_len, g_up_len, __ATOMIC_RELEASE);
	__atomic_add_fetch(&s->up_seq, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&s->checker_sleeping, __ATOMIC_SEQ_CST))
		sys_futex(&s->up_seq, FUTEX_WAKE, INT_MAX, NULL);
}

/* The poll of wait_down, in pauses: it adapts to what it wins. A wait
 * answered while polling doubles the next poll (up to POLL_MAX), one that
 * had to sleep halves it (down to POLL_MIN): on a machine too busy to
 * answer within the poll, or where the checker is often off its CPU, the
 * poll shrinks and leaves the CPU to others. */
#define POLL_MAX 1500
#define POLL_MIN 50
static int g_poll_local = POLL_MAX;
/* The poll lives in memory shared by the fork server and its children
 * (poll_init), which a reset does not put back: what one execution
 * learned serves the next. */
static int *g_poll = &g_poll_local;

static void poll_init(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		g_poll = p;
		*g_poll = POLL_MAX;
	}
}

/* wait_down waits until the checker answered (down_seq moved past last). */
static void wait_down(uint32_t last)
{
	struct stdbg_slot *s = g_slot;
	/* The checker usually answers within microseconds from another CPU:
	 * poll first, unless it runs on this CPU (the flag, or the CPU it
	 * last answered from is this thread's), where polling only keeps it
	 * from running. */
	int spin = __atomic_load_n(g_poll, __ATOMIC_RELAXED);
	uint32_t ck = __atomic_load_n(&s->checker_cpu, __ATOMIC_RELAXED);
	if ((g_flags & STDBG_F_NO_SPIN) || (ck != 0 && ck == my_cpu()))
		spin = 0;
	for (int i = 0; i < spin; i++) {
		if (__atomic_load_n(&s->down_seq, __ATOMIC_ACQUIRE) != last) {
			if (spin < POLL_MAX)
				__atomic_store_n(g_poll, spin * 2 < POLL_MAX ? spin * 2 : POLL_MAX, __ATOMIC_RELAXED);
			return;
		}
		cpu_relax();
	}
	if (spin > 0)
		__atomic_store_n(g_poll, spin / 2 > POLL_MIN ? spin / 2 : POLL_MIN, __ATOMIC_RELAXED);
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

/* The batch being followed (M_RUN_BATCH): its decisions and the next one
 * to take. */
static struct stdbg_run g_batch[STDBG_BATCH_MAX];
static int g_batch_n, g_batch_i;

/* obey_reset resets the child if the checker's answer is RESET. */
static void obey_reset(void)
{
	struct stdbg_msg_hdr h;
	if (g_slot->down_len < sizeof h)
		return;
	memcpy(&h, g_slot->down, sizeof h);
	if (h.type == M_RESET) {
		g_batch_n = g_batch_i = 0;
		reuse_reset(self);
	}
}

/* batch_step ends a step of a batch: the step's messages get their mark
 * and are published at once, and the batch's next decision is taken.
 * Returns 0 when the batch is over (or the mailbox too full to go on):
 * the caller hands the mailbox over as usual. */
static int batch_step(uint32_t *tid, int64_t *code)
{
	if (g_batch_i >= g_batch_n || g_up_len > STDBG_UP_CAP / 2) {
		g_batch_n = g_batch_i = 0;
		return 0;
	}
	if (g_flags & STDBG_F_STATE)
		put_state();
	up_hdr(M_STEP, 0);
	up_flush(); /* publishes all written so far; the checker reads to the mark */
	*tid = g_batch[g_batch_i].tid;
	*code = g_batch[g_batch_i].code;
	g_batch_i++;
	return 1;
}

/* exchange hands the mailbox to the checker and returns its M_RUN answer. */
static void exchange(uint32_t *tid, int64_t *code)
{
	if (g_replay) {
		replay_next(tid, code);
		return;
	}
	if (batch_step(tid, code))
		return;
	struct stdbg_slot *s = g_slot;
	uint32_t last = __atomic_load_n(&s->down_seq, __ATOMIC_ACQUIRE);
	if (g_flags & STDBG_F_STATE)
		put_state();
	up_flush();
	wait_down(last);
	g_up_len = 0; /* the checker consumed the messages */
	obey_reset();
	struct stdbg_msg_hdr h;
	if (s->down_len < sizeof h)
		fatal("short answer from the checker");
	memcpy(&h, s->down, sizeof h);
	if (h.type == M_RUN_BATCH) {
		struct stdbg_batch b;
		if (s->down_len < sizeof h + sizeof b)
			fatal("short batch from the checker");
		memcpy(&b, s->down + sizeof h, sizeof b);
		if (b.n < 1 || b.n > STDBG_BATCH_MAX || s->down_len < sizeof h + sizeof b + b.n * sizeof(struct stdbg_run))
			fatal("malformed batch from the checker");
		memcpy(g_batch, s->down + sizeof h + sizeof b, b.n * sizeof(struct stdbg_run));
		g_batch_n = (int)b.n;
		g_batch_i = 1;
		*tid = g_batch[0].tid;
		*code = g_batch[0].code;
		return;
	}
	struct stdbg_run r;
	if (s->down_len < sizeof h + sizeof r)
		fatal("short answer from the checker");
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
static void mem_flush(struct thr *me);

static void report_failure(uint16_t kind, int signo, uint64_t addr, const uint64_t *frames, int nframes,
                           const char *msg, const char *file, unsigned line, const char *func)
{
	if (!g_started || g_failed || g_replay)
		return;
	g_failed = 1;
	mem_flush(self); /* the accesses before the failure: a race may explain it */
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

static void pool_run(struct thr *t);
static void ctx_name(struct thr *t);
static void ctx_handoff(struct thr *me, struct thr *t);

/* give_turn gives the turn to t from a thread that is not a context
 * (contexts hand over with ctx_handoff). */
static void give_turn(struct thr *t)
{
	if (t->ctx) {
		ctx_name(t);
		return;
	}
	if (t->lazy) {
		pool_run(t);
		return;
	}
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
	/* The lifeline (two system calls) is for a wait that lasts: a turn
	 * that came needs none. */
	while (!__atomic_load_n(&t->go, __ATOMIC_ACQUIRE)) {
		sys_futex(&t->go, FUTEX_WAIT_PRIVATE, 0, &ts);
		if (!__atomic_load_n(&t->go, __ATOMIC_ACQUIRE))
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
