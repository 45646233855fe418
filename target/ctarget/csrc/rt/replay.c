/* rt/replay.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns replay of a decision log without a checker (STDBG_REPLAY), for GDB and
 * for running a stored schedule on its own.
 */

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

/* g_pending_poked is the scratch of a pending report's poked threads,
 * filled before each use; the snapshot of a reused process leaves it
 * out (rt/reuse.c). */
static uint32_t g_pending_poked[MAXTHREADS];

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
		/* The frames begin at the call: those of code between it and
		 * this library (the memory instrumentation's entry points,
		 * linked into the program) are stdbg's. */
		for (int i = 1; i < n; i++) {
			if (frames[i] == (uint64_t)(uintptr_t)ra) {
				memmove(frames, frames + i, (size_t)(n - i) * sizeof frames[0]);
				n -= i;
				break;
			}
		}
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
	/* The spin report, of the thread that reports its own point only (a
	 * creator reports a pooled thread's start). */
	uint32_t *poked = g_pending_poked;
	struct stdbg_spin sr;
	int np = 0;
	int spin = me == self && spin_report(me, kind, api, obj, obj2, arg, ra, &sr, poked, &np);
	/* The operands of an atomic operation follow the spin report, an
	 * empty one if there is none. */
	int operand = me == self && me->operand_op;
	if (operand && !spin) {
		memset(&sr, 0, sizeof sr);
		np = 0;
	}
	struct stdbg_operand so = {0};
	if (operand) {
		so = (struct stdbg_operand){.op = me->operand_op, .v = me->operand_v, .w = me->operand_w};
		me->operand_op = 0;
	}
	struct stdbg_pending p = {0};
	p.tid = (uint32_t)me->tid;
	p.ostid = (uint32_t)me->ostid;
	p.kind = kind;
	p.api = api;
	p.nframes = (uint32_t)n;
	p.obj = (uint64_t)(uintptr_t)obj;
	p.obj2 = (uint64_t)(uintptr_t)obj2;
	p.arg = arg;
	up_hdr(M_PENDING, sizeof p + 8u * (uint32_t)n + (spin || operand ? (uint32_t)(sizeof sr + 4u * (uint32_t)np) : 0u) +
				  (operand ? (uint32_t)sizeof so : 0u));
	up_put(&p, sizeof p);
	up_put(frames, 8u * (size_t)n);
	if (spin || operand) {
		up_put(&sr, sizeof sr);
		up_put(poked, 4u * (size_t)np);
	}
	if (operand)
		up_put(&so, sizeof so);
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
	if (me->ctx) {
		/* Contexts run only in searches, never under a debugger. */
		stdbg_step(me->tid, (int)tid);
		ctx_handoff(me, t);
		return me->finished ? 0 : me->result;
	}
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
	if (g_mem_log)
		mem_flush(me);
	put_pending(me, kind, api, obj, obj2, arg, ra);
	if (me->first) {
		/* A new thread's first report belongs to its creator's
		 * transition: tell the creator, then wait for a turn. */
		me->first = 0;
		__atomic_store_n(&me->started, 1, __ATOMIC_SEQ_CST);
		sys_futex(&me->started, FUTEX_WAKE_PRIVATE, 1, NULL);
		wait_turn(me);
		spin_resume(me);
		return me->result;
	}
	int64_t code = handoff(me);
	spin_resume(me);
	return code;
}

#define RA __builtin_return_address(0)
#define SCHED(kind, api, obj, obj2, arg) sched((kind), (api), (obj), (obj2), (int64_t)(arg), RA)
