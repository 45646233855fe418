/* rt/state.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns the program's state for stateful search (STDBG_F_STATE): fingerprints
 * of globals, heap blocks in use and each thread's stack.
 */

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
 * A child reset in place for the next execution (rt/reuse.c) hashes every
 * state as a fresh child does: the reset puts back everything hashed here,
 * and gives the kept thread stacks back to the kernel (reuse_clear_stacks),
 * so that what one execution left below its frames is zeros again.
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
	/* A thread returning from its start routine, main returning: ra
	 * names the function, not a call; the user's frames are gone, nothing
	 * of the stack is hashed. */
	me->sp = me->stack_hi;
	if (ra == (char *)me->where + 1 || (user_main && ra == (char *)user_main + 1))
		return;
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
	/* The caller's frame was not found (a frame without a frame pointer
	 * between it and this library): the stack is hashed from here, this
	 * library's frames with the user's. Two states may then differ where
	 * the program does not (a revisit missed), never the other way: hashing
	 * nothing would merge states that differ in the user's locals, and a
	 * revisit would cut a future that differs (a missed bug). */
	if (!me->stack_hi || lo < me->stack_hi)
		me->sp = lo;
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

/* The table starts small and doubles when half full: state_hash walks
 * all of it at every hand-over, and a program holds few blocks (a table
 * of 4096 entries was 64 KB read at each step for a handful). */
static void block_grow(void)
{
	size_t ncap = g_bcap ? g_bcap * 2 : 256;
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
	spin_dirty();
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
	spin_dirty();
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
	spin_dirty();
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
	spin_dirty();
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
	spin_dirty();
	if (b && a > SIZE_MAX / b) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(old, a * b);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	spin_dirty();
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
	spin_dirty();
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
	spin_dirty();
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
