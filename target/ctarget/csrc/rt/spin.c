/* rt/spin.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns what the library tells the checker of spin loops (docs/spin.md):
 * with every PENDING, a fingerprint of the thread's own state at the point
 * and whether, since its last point, the thread did anything the checker
 * does not see. The checker makes a thread that came back to a state it
 * was in, having only read what it sees, wait for a write to what it read;
 * so what the library vouches for must hold:
 *
 *  - the state: the thread's callee-saved registers and the return
 *    address of its call (found with the unwinder: this library's frames
 *    may have saved the registers), and the bytes of its stack from the
 *    caller's stack pointer to the frame that started the thread (main's
 *    caller, for the main thread). Other registers are dead across a call.
 *    Thread-local variables are not part of it: a store to one makes the
 *    transition unclean, and another thread's access to a thread's stack or
 *    thread-local storage pokes that thread (below);
 *  - a clean transition: every load and store the instrumented program made
 *    was of memory the checker sees (globals and heap, logged or a point),
 *    of the thread's own stack, or a load of its own thread-local storage;
 *    every atomic operation was a point; no call left the program's code for
 *    a library function this library does not model (each call through the
 *    main program's PLT to one is counted by a stub, see spin_calls: a read
 *    of a file, of the clock, a print); the C library's allocator was not
 *    called. A program built without the instrumentation claims nothing;
 *  - poked threads: a thread whose stack or thread-local storage another
 *    touched may have had its state changed, or been seen half way through
 *    an iteration: the checker forgets what it did so far.
 *
 * The fingerprint is taken only at points whose operation may change
 * nothing (a load, a yield, a trylock, ...) and which the thread reached
 * before in its current clean stretch (same call, operation and object):
 * a loop is then found at its second turn instead of its first, and a
 * program that does not spin pays for none. Stateful searches (flag 4) get
 * no claims: they cut loops by state themselves; nor does a program run
 * with STDBG_SPIN=0, whose every turn is explored.
 */

/* ------------------------------------------------------------------ */
/* Spin reports                                                        */

static int g_instrumented;   /* the program's stub announced itself (stdbg_rt_instrumented) */
static int g_spin_on;        /* claims may be made: instrumented, calls counted, unwinder found */
static uint64_t *g_spin_calls; /* calls out of the program through its PLT to code not modelled */
static size_t g_tls_static;  /* bytes of static TLS below the thread pointer, 0 unknown */

#define SPIN_POKED_MAX 16
static uint32_t g_poked[SPIN_POKED_MAX];
static int g_npoked, g_poked_all;

/* The unwinder (libgcc_s), looked up once. */
struct _Unwind_Context;
typedef int (*spin_trace_fn)(struct _Unwind_Context *, void *);
static int (*u_backtrace)(spin_trace_fn, void *);
static uintptr_t (*u_getip)(struct _Unwind_Context *);
static uintptr_t (*u_getgr)(struct _Unwind_Context *, int);
static uintptr_t (*u_getcfa)(struct _Unwind_Context *);

/* Functions the program may call through its PLT that neither change its
 * state nor read memory behind the checker's back. */
static const char *const spin_pure[] = {"__errno_location", NULL};

/* thread_pointer is the thread's TLS block (x86-64: %fs:0). The builtin
 * emits the same instruction as an asm statement, which, built in a
 * directory whose name holds quotes and a backslash (gdbscript's
 * TestGDBQuoting), made the assembler reject the code after it. */
static inline uintptr_t thread_pointer(void)
{
#if defined(__has_builtin) && __has_builtin(__builtin_thread_pointer)
	return (uintptr_t)__builtin_thread_pointer();
#else
	uintptr_t tp;
	__asm__("mov %%fs:0, %0" : "=r"(tp));
	return tp;
#endif
}

/* spin_unwinder finds the unwinder's entry points. */
static int spin_unwinder(void)
{
	void *h = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		h = dlopen("libgcc_s.so.1", RTLD_NOW);
	if (!h)
		return 0;
	*(void **)&u_backtrace = dlsym(h, "_Unwind_Backtrace");
	*(void **)&u_getip = dlsym(h, "_Unwind_GetIP");
	*(void **)&u_getgr = dlsym(h, "_Unwind_GetGR");
	*(void **)&u_getcfa = dlsym(h, "_Unwind_GetCFA");
	return u_backtrace && u_getip && u_getgr && u_getcfa;
}

/* ---- the main program's calls out: a stub per PLT slot */

struct spin_got {
	uintptr_t slots[1024]; /* addresses of the slots to patch */
	uintptr_t targets[1024];
	int n;
	int lazy; /* a slot not bound yet (no LD_BIND_NOW): calls cannot be counted */
	uintptr_t relro_lo, relro_hi;
};

static int spin_pure_name(const char *s)
{
	for (int i = 0; spin_pure[i]; i++)
		if (strcmp(s, spin_pure[i]) == 0)
			return 1;
	return 0;
}

static int spin_scan_main(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct spin_got *g = data;
	uintptr_t base = info->dlpi_addr, lo = UINTPTR_MAX, hi = 0;
	const ElfW(Dyn) *dyn = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(base + ph->p_vaddr);
		if (ph->p_type == PT_LOAD) {
			lo = base + ph->p_vaddr < lo ? base + ph->p_vaddr : lo;
			hi = base + ph->p_vaddr + ph->p_memsz > hi ? base + ph->p_vaddr + ph->p_memsz : hi;
		}
		if (ph->p_type == PT_GNU_RELRO) {
			g->relro_lo = base + ph->p_vaddr;
			g->relro_hi = base + ph->p_vaddr + ph->p_memsz;
		}
	}
	if (!dyn)
		return 1;
	uintptr_t strtab = 0, symtab = 0, jmprel = 0;
	size_t pltsz = 0;
	int pltrela = 1;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		switch (dyn->d_tag) {
		case DT_STRTAB: strtab = dyn->d_un.d_ptr; break;
		case DT_SYMTAB: symtab = dyn->d_un.d_ptr; break;
		case DT_JMPREL: jmprel = dyn->d_un.d_ptr; break;
		case DT_PLTRELSZ: pltsz = dyn->d_un.d_val; break;
		case DT_PLTREL: pltrela = dyn->d_un.d_val == DT_RELA; break;
		}
	}
	if (!pltrela || !strtab || !symtab) {
		g->lazy = 1;
		return 1;
	}
	if (strtab < base)
		strtab += base, symtab += base, jmprel += jmprel ? base : 0;
	const ElfW(Sym) *sym = (const ElfW(Sym) *)symtab;
	const char *str = (const char *)strtab;
	const ElfW(Rela) *r = (const ElfW(Rela) *)jmprel;
	for (size_t i = 0; jmprel && i < pltsz / sizeof *r; i++) {
		if (ELF64_R_TYPE(r[i].r_info) != R_X86_64_JUMP_SLOT)
			continue;
		uintptr_t slot = base + r[i].r_offset, target = *(uintptr_t *)slot;
		if (target >= lo && target < hi) {
			g->lazy = 1; /* still the PLT's resolver */
			return 1;
		}
		if (own_frame(target) || spin_pure_name(str + sym[ELF64_R_SYM(r[i].r_info)].st_name))
			continue; /* modelled by this library, or harmless */
		if (g->n == (int)(sizeof g->slots / sizeof g->slots[0])) {
			g->lazy = 1;
			return 1;
		}
		g->slots[g->n] = slot;
		g->targets[g->n] = target;
		g->n++;
	}
	return 1; /* the main program only */
}

/* g_spin_got is spin_patch's scratch, at file scope so that the snapshot
 * of a reused process leaves it out (rt/reuse.c): nothing reads it once
 * spin_patch returns. */
static struct spin_got g_spin_got;

/* spin_patch sends every call of the main program to a function this
 * library does not model through a stub that counts it (*g_spin_calls)
 * and jumps on. Each stub is endbr64; lock incq counter(%rip); jmp
 * *target(%rip). Returns 0 when calls cannot be counted. */
static int spin_patch(void)
{
	struct spin_got *g = &g_spin_got;
	dl_iterate_phdr(spin_scan_main, g);
	if (g->lazy)
		return 0;
	size_t page = 4096, stub = 32;
	size_t code = ((size_t)g->n * (stub + 8) + page - 1) / page * page;
	uint8_t *m = mmap(NULL, code + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 0;
	g_spin_calls = (uint64_t *)(m + code);
	uintptr_t *targets = (uintptr_t *)(m + (size_t)g->n * stub);
	for (int i = 0; i < g->n; i++) {
		uint8_t *s = m + (size_t)i * stub;
		targets[i] = g->targets[i];
		static const uint8_t endbr[] = {0xf3, 0x0f, 0x1e, 0xfa};
		memcpy(s, endbr, 4);
		int32_t rel = (int32_t)((intptr_t)g_spin_calls - (intptr_t)(s + 4 + 8));
		s[4] = 0xf0, s[5] = 0x48, s[6] = 0xff, s[7] = 0x05; /* lock incq rel(%rip) */
		memcpy(s + 8, &rel, 4);
		rel = (int32_t)((intptr_t)&targets[i] - (intptr_t)(s + 12 + 6));
		s[12] = 0xff, s[13] = 0x25; /* jmp *rel(%rip) */
		memcpy(s + 14, &rel, 4);
		memset(s + 18, 0xcc, stub - 18);
	}
	if (mprotect(m, code, PROT_READ | PROT_EXEC) != 0)
		return 0;
	for (int i = 0; i < g->n; i++) {
		uintptr_t pg = g->slots[i] & ~(page - 1);
		int relro = g->slots[i] >= g->relro_lo && g->slots[i] < g->relro_hi;
		if (relro && mprotect((void *)pg, page, PROT_READ | PROT_WRITE) != 0)
			return 0;
		*(uintptr_t *)g->slots[i] = (uintptr_t)(m + (size_t)i * stub);
		if (relro)
			mprotect((void *)pg, page, PROT_READ);
	}
	return 1;
}

/* stdbg_rt_instrumented is called by the constructor of the memory
 * instrumentation's stub (stdbg_tsan.c), in an instrumented program,
 * before main: claims can be made if the program's calls out can be
 * counted. */
EXPORT void stdbg_rt_instrumented(void)
{
	if (g_instrumented || !g_enabled || g_replay)
		return;
	g_instrumented = 1;
	const char *off = getenv("STDBG_SPIN");
	if (off && strcmp(off, "0") == 0)
		return; /* (every turn of every loop explored: a reference) */
	in_runtime++;
	void (*tls_info)(size_t *, size_t *);
	*(void **)&tls_info = dlsym(RTLD_DEFAULT, "_dl_get_tls_static_info");
	if (tls_info) {
		size_t size = 0, align = 0;
		tls_info(&size, &align);
		g_tls_static = size < (1u << 20) ? size : 0;
	}
	g_spin_on = spin_unwinder() && spin_patch();
	in_runtime--;
}

/* ---- accesses the checker does not see */

static void spin_poke(int tid)
{
	for (int i = 0; i < g_npoked; i++)
		if (g_poked[i] == (uint32_t)tid)
			return;
	if (g_npoked == SPIN_POKED_MAX) {
		g_poked_all = 1;
		return;
	}
	g_poked[g_npoked++] = (uint32_t)tid;
}

/* spin_access takes an instrumented access by thread me of memory the
 * checker does not see (not logged, no point): of its own stack (part of
 * its state), a load of its own thread-local storage, or else something
 * that makes the transition unclean, and that pokes the thread whose stack
 * or thread-local storage it is. */
static void spin_access(struct thr *me, uintptr_t a, int write)
{
	if (!me || me->spin_dirty)
		return;
	uintptr_t below = (uintptr_t)__builtin_frame_address(0);
	if (a >= below && a < me->spin_hi)
		return;
	uintptr_t tp = thread_pointer();
	if (!write && g_tls_static && a < tp && a >= tp - g_tls_static)
		return;
	me->spin_dirty = 1;
	for (int i = 1; i <= nthreads; i++) {
		struct thr *t = threads[i];
		if (!t || t == me || t->finished)
			continue;
		int stack = t->spin_sp && a >= t->spin_sp && a < t->spin_hi;
		int tls = g_tls_static && t->spin_tp && a < t->spin_tp && a >= t->spin_tp - g_tls_static;
		if (stack || tls)
			spin_poke(t->tid);
	}
}

/* spin_dirty marks the calling thread's transition unclean (a call into
 * the allocator, ...). */
static inline void spin_dirty(void)
{
	struct thr *me = self;
	if (me && !in_runtime)
		me->spin_dirty = 1;
}

/* ---- the state of a thread at its point */

struct spin_unwind {
	uintptr_t ra, prev_cfa, sp;
	uint64_t regs[6];
	int found, depth;
};

static int spin_frame(struct _Unwind_Context *ctx, void *arg)
{
	struct spin_unwind *u = arg;
	if (u_getip(ctx) == u->ra) {
		static const int dwarf[6] = {3, 6, 12, 13, 14, 15}; /* rbx rbp r12-r15 */
		for (int i = 0; i < 6; i++)
			u->regs[i] = u_getgr(ctx, dwarf[i]);
		u->sp = u->prev_cfa;
		u->found = 1;
		return 5; /* _URC_END_OF_STACK */
	}
	u->prev_cfa = u_getcfa(ctx);
	return ++u->depth > 32 ? 5 : 0;
}

static uint64_t hash_bytes(const void *p, size_t n, uint64_t seed);
static inline uint64_t mix64(uint64_t x);

/* spin_state fingerprints thread me at its point: 0 if it cannot. */
static uint64_t spin_state(struct thr *me, uint16_t kind, uint16_t api, const void *obj, const void *obj2, int64_t arg,
                           void *ra)
{
	if (!me->spin_hi)
		return 0;
	struct spin_unwind u = {.ra = (uintptr_t)ra};
	in_runtime++;
	u_backtrace(spin_frame, &u);
	in_runtime--;
	if (!u.found || u.sp == 0 || u.sp > me->spin_hi || me->spin_hi - u.sp > (1u << 20))
		return 0;
	uint64_t h = mix64((uint64_t)(uintptr_t)ra ^ (uint64_t)kind << 48 ^ (uint64_t)api << 32);
	h = mix64(h ^ (uint64_t)(uintptr_t)obj);
	h = mix64(h ^ (uint64_t)(uintptr_t)obj2);
	h = mix64(h ^ (uint64_t)arg);
	for (int i = 0; i < 6; i++)
		h = mix64(h ^ u.regs[i] ^ (uint64_t)i << 56);
	h = hash_bytes((const void *)u.sp, me->spin_hi - u.sp, h ^ (me->spin_hi - u.sp));
	return h ? h : 1;
}

/* spin_may_poll reports whether an operation of kind may leave the state
 * as it was (syncmodel.Poll). */
static int spin_may_poll(uint16_t kind)
{
	switch (kind) {
	case K_READ: case K_WRITE: case K_YIELD: case K_SLEEP: case K_MUTEX_TRYLOCK: case K_SPIN_TRYLOCK:
	case K_RWLOCK_TRYRDLOCK: case K_RWLOCK_TRYWRLOCK: case K_SEM_TRYWAIT: case K_MUTEX_TIMEDLOCK:
	case K_SEM_TIMEDWAIT: case K_RWLOCK_TIMEDRDLOCK: case K_RWLOCK_TIMEDWRLOCK: case K_SEM_GETVALUE:
		return 1;
	}
	return 0;
}

/* spin_seen reports whether thread me reached a point with this call,
 * operation and object before in its clean stretch, and notes it. */
static int spin_seen(struct thr *me, uint16_t kind, const void *obj, void *ra)
{
	uint64_t key = mix64((uint64_t)(uintptr_t)ra ^ (uint64_t)(uintptr_t)obj * 31 ^ kind);
	for (int i = 0; i < me->spin_nseen; i++)
		if (me->spin_seen[i] == key)
			return 1;
	if (me->spin_nseen < (int)(sizeof me->spin_seen / sizeof me->spin_seen[0]))
		me->spin_seen[me->spin_nseen++] = key;
	return 0;
}

/* spin_resume starts thread me's transition as it gets its turn: the
 * calls out counted from here are its own (the threads that ran while it
 * waited made theirs). */
static inline void spin_resume(struct thr *me)
{
	if (g_spin_calls && me)
		me->spin_calls = *g_spin_calls;
}

/* struct stdbg_spin is the spin report that follows a PENDING's (empty)
 * select cases (docs/protocol.md). */
struct stdbg_spin {
	uint32_t ncases; /* 0: C has no select */
	uint64_t state;
	uint32_t flags; /* 1 clean, 2 unchanged */
	uint32_t npoked;
} __attribute__((packed));

/* spin_report fills thread me's report for its point and starts its next
 * transition; returns the bytes of poked thread ids to send after it
 * (*poked), 0 when there is no report. */
static int spin_report(struct thr *me, uint16_t kind, uint16_t api, const void *obj, const void *obj2, int64_t arg,
                       void *ra, struct stdbg_spin *r, uint32_t *poked, int *npoked)
{
	*npoked = 0;
	if (!g_spin_on || (g_flags & STDBG_F_STATE) || g_replay)
		return 0;
	int clean = !me->spin_dirty && !me->first && me->spin_calls == *g_spin_calls;
	memset(r, 0, sizeof *r);
	r->flags = (clean ? 1u : 0u) | (me->spin_unchanged ? 2u : 0u);
	if (!clean)
		me->spin_nseen = 0;
	if (spin_may_poll(kind) && spin_seen(me, kind, obj, ra))
		r->state = spin_state(me, kind, api, obj, obj2, arg, ra);
	if (g_poked_all) {
		for (int i = 1; i <= nthreads; i++)
			if (threads[i] && threads[i] != me && !threads[i]->finished && *npoked < MAXTHREADS)
				poked[(*npoked)++] = (uint32_t)i;
	} else {
		for (int i = 0; i < g_npoked; i++)
			poked[(*npoked)++] = g_poked[i];
	}
	r->npoked = (uint32_t)*npoked;
	/* The next transition starts (its count of calls when it resumes:
	 * spin_resume). */
	me->spin_dirty = 0;
	me->spin_unchanged = 0;
	me->spin_sp = (uintptr_t)__builtin_frame_address(0);
	me->spin_tp = thread_pointer();
	g_npoked = 0;
	g_poked_all = 0;
	return 1;
}
