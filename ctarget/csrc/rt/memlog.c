/* rt/memlog.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns the log of plain memory accesses (STDBG_MEM_LOG=1). In that mode
 * an instrumented program's plain loads and stores of shared memory are
 * not scheduling points: each thread notes them (one entry per address,
 * size and direction) and sends them with its next scheduling point
 * (M_ACCESS, before the PENDING), where the checker's race detector orders
 * them by the synchronization so far. A program whose schedules of thread
 * operations have no data race behaves the same whatever the order of its
 * plain accesses between two operations, and the first race of a racy one
 * shows in some schedule of its operations: so the search reorders
 * operations only, and checks memory in every schedule it runs. Atomic
 * operations stay scheduling points.
 *
 * Two things still make an access a point, both decided by what the thread
 * did since its last point only, so that a replay takes the same points:
 *  - a polling loop: MEMLOG_POLL accesses that only read at most
 *    MEMLOG_POLL_ADDRS places, nothing sent yet. It becomes a yield (a
 *    scheduling point that stands for the memory a polling loop reads), so
 *    that the thread that would end the loop gets its turn;
 *  - a transition that touched so many addresses that its entries would
 *    crowd the mailbox (MEMLOG_SEND_MAX sent): the access becomes an
 *    ordinary memory point, which ends the transition.
 */

#define MEMLOG_POLL 1024
#define MEMLOG_POLL_ADDRS 4
#define MEMLOG_SEND_MAX 4096

enum { MEM_LOGGED, MEM_POINT, MEM_POLL };

static inline uint32_t mem_slot(uintptr_t addr, uint32_t size, uint32_t write)
{
	uint64_t k = (uint64_t)addr ^ ((uint64_t)size << 48) ^ ((uint64_t)write << 63);
	return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 56) & (MEMLOG_SLOTS - 1);
}

/* mem_send puts the thread's entries into the mailbox (not in a replay,
 * which has none) and empties its log. */
static void mem_send(struct thr *me)
{
	struct memlog *l = &me->mem;
	if (l->n == 0)
		return;
	if (!g_replay && g_slot) {
		struct stdbg_accesses h = {(uint32_t)me->tid, l->n};
		up_hdr(M_ACCESS, (uint32_t)(sizeof h + l->n * sizeof l->e[0]));
		up_put(&h, sizeof h);
		up_put(l->e, l->n * sizeof l->e[0]);
	}
	l->sent += l->n;
	l->n = 0;
	memset(l->index, 0, sizeof l->index);
}

/* mem_flush ends the thread's transition for the log: at a scheduling
 * point, or a failure. */
static void mem_flush(struct thr *me)
{
	if (!me || !g_mem_log)
		return;
	mem_send(me);
	me->mem.accesses = 0;
	me->mem.sent = 0;
}

/* mem_only_reads tells whether the log holds no store. */
static int mem_only_reads(const struct memlog *l)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (l->e[i].write)
			return 0;
	return 1;
}

/* mem_log notes one plain access of thread me. MEM_POLL: a polling loop,
 * the caller yields first and logs the access after; MEM_POINT: the
 * access must be a scheduling point. */
static int mem_log(struct thr *me, uintptr_t addr, uint32_t size, int write, void *ra)
{
	struct memlog *l = &me->mem;
	if (l->accesses >= MEMLOG_POLL && l->sent == 0 && l->n <= MEMLOG_POLL_ADDRS && !write && mem_only_reads(l))
		return MEM_POLL;
	l->accesses++;
	uint32_t w = write ? 1 : 0;
	uint32_t h = mem_slot(addr, size, w);
	for (uint8_t x; (x = l->index[h]) != 0; h = (h + 1) & (MEMLOG_SLOTS - 1)) {
		struct stdbg_access *e = &l->e[x - 1];
		if (e->addr == (uint64_t)addr && e->size == size && e->write == w)
			return MEM_LOGGED;
	}
	if (l->n == MEMLOG_CAP) {
		if (l->sent + MEMLOG_CAP >= MEMLOG_SEND_MAX)
			return MEM_POINT;
		mem_send(me);
		h = mem_slot(addr, size, w);
	}
	struct stdbg_access *e = &l->e[l->n++];
	e->addr = (uint64_t)addr;
	e->pc = (uint64_t)(uintptr_t)ra;
	e->size = size;
	e->write = w;
	l->index[h] = (uint8_t)l->n;
	return MEM_LOGGED;
}
