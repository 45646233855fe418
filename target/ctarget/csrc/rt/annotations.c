/* rt/annotations.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns the annotations of stdbg.h (stdbg_read, stdbg_write, stdbg_choose,
 * stdbg_assert, stdbg_progress, stdbg_prop, ...) and the memory
 * accesses of instrumented builds (stdbg_rt_mem), found with dlsym.
 */

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
enum { MEM_READ, MEM_WRITE, MEM_ATOMIC_LOAD, MEM_ATOMIC_STORE, MEM_ATOMIC_RMW, MEM_ATOMIC_UNCHANGED };

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

/* data_ranges finds the main program's data and where its heap starts,
 * once: the fork server does it before the first fork, so that neither a
 * fresh child nor a reused one (whose snapshot is taken after the fork)
 * reads /proc again. */
static void data_ranges(void)
{
	if (g_ndata >= 0)
		return;
	in_runtime++;
	g_ndata = 0;
	dl_iterate_phdr(main_data, NULL);
	g_heap_lo = heap_start();
	in_runtime--;
}

static int shared_memory(uintptr_t a)
{
	data_ranges();
	for (int i = 0; i < g_ndata; i++)
		if (a >= g_data_lo[i] && a < g_data_hi[i])
			return 1;
	uintptr_t brk_now = (uintptr_t)sbrk(0);
	return g_heap_lo && a >= g_heap_lo && a < brk_now;
}

/* several_threads tells whether an access may race with another thread's:
 * whether a thread other than the caller lives, or finished without being
 * joined. Only a join orders a finished thread's accesses before the
 * others' (a detached one's, never); and a thread that joined all the
 * others (or joined those that joined the rest) is ordered after them all.
 * So whether an access is seen changes only at the caller's own join, not
 * at another thread's exit, which would hide a race behind the exit and
 * make the exit a step DPOR takes for independent of the access. */
static int several_threads(void)
{
	int live = 0;
	for (int i = 1; i <= nthreads && live < 2; i++)
		if (threads[i] && !(threads[i]->finished && threads[i]->joined))
			live++;
	return live > 1;
}

EXPORT void stdbg_rt_mem(const volatile void *addr, unsigned long size, int kind, void *ra)
{
	if (!active())
		return;
	if (kind == MEM_ATOMIC_UNCHANGED) {
		/* The atomic operation just done left memory as it was: if it
		 * is the one of the thread's last point, say so with its next. */
		struct thr *me = self;
		if (me->spin_after_point && me->spin_point_obj == (uintptr_t)addr)
			me->spin_unchanged = 1;
		me->spin_after_point = 0;
		return;
	}
	if (kind < MEM_READ || kind > MEM_ATOMIC_RMW)
		return;
	if (kind >= MEM_ATOMIC_LOAD)
		self->spin_after_point = 0;
	static const uint16_t api[] = {A_LOAD, A_STORE, A___ATOMIC_LOAD, A___ATOMIC_STORE, A___ATOMIC_RMW};
	uint16_t k = kind == MEM_READ || kind == MEM_ATOMIC_LOAD ? K_READ : K_WRITE;
	if (g_memlog && (kind == MEM_READ || kind == MEM_WRITE)) {
		/* (mem_log tells shared memory itself, once per address.) */
		struct thr *me = self;
		int r = mem_log(me, (uintptr_t)addr, (uint32_t)size, kind == MEM_WRITE, ra);
		if (r == MEM_LOGGED)
			return;
		if (r == MEM_POLL) {
			/* A polling loop: let the others run, then note the
			 * access as the first of the next transition. */
			sched(K_YIELD, A_MEMORY_POLL, (const void *)addr, NULL, (int64_t)size, ra);
			if (!active())
				return;
			if (mem_log(me, (uintptr_t)addr, (uint32_t)size, kind == MEM_WRITE, ra) == MEM_LOGGED)
				return;
		}
	}
	if (!several_threads() || !shared_memory((uintptr_t)addr)) {
		spin_access(self, (uintptr_t)addr, k == K_WRITE);
		return;
	}
	sched(k, api[kind], (const void *)addr, NULL, (int64_t)size, ra);
	if (kind >= MEM_ATOMIC_LOAD && active()) {
		self->spin_after_point = 1;
		self->spin_point_obj = (uintptr_t)addr;
	}
}

/* stdbg_rt_atomic is stdbg_rt_mem for an atomic store or read-modify-write
 * of an instrumented program, with what it stores (op, OPERAND_* of
 * stdbg_wire.h; v, and w for a compare-and-swap): sent as they are with
 * the operation's PENDING, for traces to show, never part of the model. */
EXPORT void stdbg_rt_atomic(const volatile void *addr, unsigned long size, int kind, void *ra, unsigned op,
			    unsigned long long v, unsigned long long w)
{
	if (!active())
		return;
	struct thr *me = self;
	me->operand_op = op;
	me->operand_v = v;
	me->operand_w = w;
	stdbg_rt_mem(addr, size, kind, ra);
	me->operand_op = 0;
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
