/* rt/memlog.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns the log of plain memory accesses (STDBG_MEM_LOG=1). In that mode
 * an instrumented program's plain loads and stores of shared memory are
 * not scheduling points: the running thread notes them (one entry per
 * address, size and direction) and sends them with its next scheduling
 * point (M_ACCESS, before the PENDING), where the checker's race detector
 * orders them by the synchronization so far. A program whose schedules of thread
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
 *    crowd the mailbox or its set of addresses seen (MEMLOG_DISTINCT_MAX):
 *    the access becomes an ordinary memory point, which ends the
 *    transition.
 */

#define MEMLOG_POLL 1024
#define MEMLOG_POLL_ADDRS 4
#define MEMLOG_CAP 128
#define MEMLOG_SEEN 4096
#define MEMLOG_DISTINCT_MAX (MEMLOG_SEEN / 4 * 3)

enum { MEM_LOGGED, MEM_POINT, MEM_POLL };

struct memseen {
	uint64_t addr;
	uint32_t epoch;
	uint32_t key; /* size << 2 | not shared << 1 | write */
};

/* The log of the transition running (one thread runs at a time): its
 * entries wait in e until it is full or the transition ends; seen holds
 * the keys of the transition's accesses, an open-addressed set whose slots
 * count only when their epoch is the transition's, so that it is never
 * cleared. The log has a mapping of its own, left out of the snapshot of a
 * reused child (rt/reuse.c): its epochs only grow, and a slot of an
 * earlier execution never counts. */
struct memlog {
	uint32_t epoch;    /* the transition's, never 0 */
	int tid;           /* the thread whose accesses these are, 0 none */
	uint32_t accesses; /* shared ones made in the transition */
	uint32_t sent;     /* entries sent in the transition */
	uint32_t n;        /* entries waiting in e */
	uint32_t distinct; /* keys in seen, shared or not */
	uint32_t writes;   /* entries that are stores */
	struct stdbg_access e[MEMLOG_CAP];
	struct memseen seen[MEMLOG_SEEN];
};

static struct memlog *g_memlog;

/* mem_init maps the log (at start-up, with STDBG_MEM_LOG=1). */
static void mem_init(void)
{
	void *p = mmap(NULL, sizeof *g_memlog, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		raw_write(2, "stdbg: cannot map the memory access log\n");
		die_now(70);
	}
	g_memlog = p;
	g_memlog->epoch = 1;
}

static inline uint32_t mem_slot(uintptr_t addr, uint32_t key)
{
	uint64_t k = (uint64_t)addr ^ ((uint64_t)key << 48);
	return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 40) & (MEMLOG_SEEN - 1);
}

/* mem_send puts the waiting entries into the mailbox (not in a replay,
 * which has none). */
static void mem_send(void)
{
	struct memlog *l = g_memlog;
	if (l->n == 0)
		return;
	if (!g_replay && g_slot) {
		struct stdbg_accesses h = {(uint32_t)l->tid, l->n};
		up_hdr(M_ACCESS, (uint32_t)(sizeof h + l->n * sizeof l->e[0]));
		up_put(&h, sizeof h);
		up_put(l->e, l->n * sizeof l->e[0]);
	}
	l->sent += l->n;
	l->n = 0;
}

/* mem_end ends the transition of the log, and starts the next one, of
 * thread tid. */
static void mem_end(int tid)
{
	struct memlog *l = g_memlog;
	mem_send();
	l->accesses = l->sent = l->distinct = l->writes = 0;
	l->tid = tid;
	if (++l->epoch == 0)
		l->epoch = 1;
}

/* mem_flush ends the running thread's transition for the log: at a
 * scheduling point, or a failure. */
static void mem_flush(struct thr *me)
{
	if (g_memlog)
		mem_end(me ? me->tid : 0);
}

/* mem_polls tells whether a read now makes the transition a polling
 * loop: many shared accesses, all reads of a few places. */
static inline int mem_polls(const struct memlog *l, int write)
{
	return !write && l->accesses >= MEMLOG_POLL && l->writes == 0 && l->sent + l->n <= MEMLOG_POLL_ADDRS;
}

static int several_threads(void);
static int shared_memory(uintptr_t a);

/* mem_log notes one plain access of thread me (checked by the caller:
 * active). The set of the transition's addresses also holds those found
 * not shared (a stack, or one thread running): within a transition that
 * does not change, so that a repeated access costs a lookup only.
 * MEM_POLL: a polling loop, the caller yields first and logs the access
 * after; MEM_POINT: the access must be a scheduling point. */
static int mem_log(struct thr *me, uintptr_t addr, uint32_t size, int write, void *ra)
{
	struct memlog *l = g_memlog;
	if (l->tid != me->tid)
		mem_end(me->tid); /* (a thread that ran without a point of its own) */
	uint32_t key = size << 2 | (write ? 1u : 0u);
	uint32_t h = mem_slot(addr, key);
	struct memseen *s;
	for (;; h = (h + 1) & (MEMLOG_SEEN - 1)) {
		s = &l->seen[h];
		if (s->epoch != l->epoch)
			break; /* a free slot: not seen in this transition */
		if (s->addr == (uint64_t)addr && (s->key & ~2u) == key) {
			if (s->key & 2u)
				return MEM_LOGGED; /* not shared */
			goto shared;
		}
	}
	if (l->distinct >= MEMLOG_DISTINCT_MAX)
		return MEM_POINT;
	int shared = several_threads() && shared_memory(addr);
	if (!shared)
		spin_access(me, addr, write);
	if (shared && mem_polls(l, write))
		return MEM_POLL; /* (noted after the yield, in the next transition) */
	s->addr = (uint64_t)addr;
	s->key = key | (shared ? 0u : 2u);
	s->epoch = l->epoch;
	l->distinct++;
	if (!shared)
		return MEM_LOGGED;
	if (write)
		l->writes++;
	if (l->n == MEMLOG_CAP)
		mem_send();
	struct stdbg_access *e = &l->e[l->n++];
	e->addr = (uint64_t)addr;
	e->pc = (uint64_t)(uintptr_t)ra;
	e->size = size;
	e->write = write ? 1u : 0u;
	l->accesses++;
	return MEM_LOGGED;
shared:
	if (mem_polls(l, write))
		return MEM_POLL;
	l->accesses++;
	return MEM_LOGGED;
}
