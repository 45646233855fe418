/* rt/context.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns contexts: in a reused child with a thread pool (rt/pool.c), the
 * main thread and the pooled threads run one at a time on the main kernel
 * thread (the runner), and a hand-over between two of them is a switch of
 * registers, stack and thread pointer in user space instead of a futex
 * wake-up and a context switch in the kernel (docs/protocol.md,
 * "Contexts"). Each context keeps its own glibc thread descriptor and TLS
 * (the pooled thread's), so pthread_self, errno, __thread variables and
 * glibc's per-thread state are what they would be on a thread of its own.
 *
 * The kernel thread of a pooled thread waits, for good, on a small stack
 * of its own (its park stack) while its context runs on the runner; a
 * context that must end as a real thread (pthread_exit, keys) is handed
 * back to its kernel thread (demoted), which ends it as glibc would.
 * When the turn goes to a thread that is not a context, the runner waits
 * on its idle stack until a context is named again.
 *
 * Contexts are used only where nothing tells them from threads: the
 * program (and every library it loaded, the C and C++ runtimes aside)
 * imports none of the calls that name or act on a kernel thread
 * (ctx_denied: gettid, signals to one thread, signal masks, affinity,
 * cancellation, dlopen...), it runs no sanitizer runtime, and the machine
 * is x86-64. Otherwise, or with STDBG_F_NO_CTX, threads hand over through
 * the kernel as before.
 */

#if defined(__x86_64__)

/* stdbg_ctx_swap saves the callee-saved registers and the floating-point
 * control words on the current stack, stores the stack pointer in *save,
 * loads to_sp, sets the thread pointer to to_fs (unless 0: wrfsbase when
 * wrfs, else arch_prctl) and returns on the other stack. stdbg_ctx_boot is
 * where a new context starts: it calls r12(r13). */
__asm__(".text\n"
        ".p2align 4\n"
        ".globl stdbg_ctx_swap\n"
        ".hidden stdbg_ctx_swap\n"
        ".type stdbg_ctx_swap,@function\n"
        "stdbg_ctx_swap:\n"
        "	pushq %rbp\n"
        "	pushq %rbx\n"
        "	pushq %r12\n"
        "	pushq %r13\n"
        "	pushq %r14\n"
        "	pushq %r15\n"
        "	subq $16, %rsp\n"
        "	stmxcsr 8(%rsp)\n"
        "	fnstcw (%rsp)\n"
        "	movq %rsp, (%rdi)\n"
        "	movq %rsi, %rsp\n"
        "	testq %rdx, %rdx\n"
        "	jz 2f\n"
        "	testl %ecx, %ecx\n"
        "	jz 1f\n"
        "	wrfsbase %rdx\n"
        "	jmp 2f\n"
        "1:	movq %rdx, %rsi\n"
        "	movl $0x1002, %edi\n" /* ARCH_SET_FS */
        "	movl $158, %eax\n"    /* SYS_arch_prctl */
        "	syscall\n"
        "2:	ldmxcsr 8(%rsp)\n"
        "	fldcw (%rsp)\n"
        "	addq $16, %rsp\n"
        "	popq %r15\n"
        "	popq %r14\n"
        "	popq %r13\n"
        "	popq %r12\n"
        "	popq %rbx\n"
        "	popq %rbp\n"
        "	ret\n"
        ".size stdbg_ctx_swap, .-stdbg_ctx_swap\n"
        ".globl stdbg_ctx_boot\n"
        ".hidden stdbg_ctx_boot\n"
        ".type stdbg_ctx_boot,@function\n"
        "stdbg_ctx_boot:\n"
        "	movq %r13, %rdi\n"
        "	callq *%r12\n"
        "	ud2\n"
        ".size stdbg_ctx_boot, .-stdbg_ctx_boot\n");

__attribute__((visibility("hidden"))) void stdbg_ctx_boot(void);
#define CTX_SUPPORTED 1
#else
#define CTX_SUPPORTED 0
__attribute__((visibility("hidden"))) void stdbg_ctx_swap(uintptr_t *save, uintptr_t to_sp, uintptr_t to_fs, int wrfs)
{ /* never called: contexts stay off (ctx_decide) */
	(void)save, (void)to_sp, (void)to_fs, (void)wrfs;
	fatal("contexts are not supported on this machine");
}
__attribute__((visibility("hidden"))) void stdbg_ctx_boot(void) {}
#endif

#ifndef HWCAP2_FSGSBASE
#define HWCAP2_FSGSBASE (1 << 1)
#endif
#include <sys/auxv.h>

static int g_ctx_wrfs; /* the thread pointer is set with wrfsbase */
static uintptr_t g_ctx_main_fs;

/* The runner: where it waits when no context has the turn (its idle
 * context, booted on its first use after a fork or a reset), and the
 * context a thread that is not one named to run next. */
static uintptr_t g_ctx_idle_sp;
static uint32_t g_ctx_wake; /* futex: a context was named */
static struct thr *g_ctx_next;
/* A context to hand back to its kernel thread once the switch away from
 * it is complete. */
static struct thr *g_ctx_demote;

/* The calls a context cannot make as a thread would: they name a kernel
 * thread, act on the calling one, or load code this check has not seen. */
static const char *const ctx_denied[] = {
	"gettid", "syscall", "raise", "pthread_kill", "tgkill", "tkill", "pthread_sigqueue", "pthread_cancel",
	"pthread_sigmask", "sigprocmask", "sigwait", "sigwaitinfo", "sigtimedwait", "sigsuspend", "signalfd",
	"sigaltstack", "timer_create", "pthread_getcpuclockid", "clock_getcpuclockid", "pthread_setaffinity_np",
	"sched_setaffinity", "pthread_setschedparam", "pthread_setschedprio", "sched_setscheduler",
	"sched_setparam", "setpriority", "unshare", "setns", "prctl", "clone", "clone3", "dlopen", "dlmopen",
	"__asan_init", "__tsan_init", "__msan_init", "__hwasan_init", NULL,
};

/* Objects whose imports are not checked: the C and C++ runtimes (libstdc++
 * imports syscall for its futexes), the loader and this library. */
static const char *const ctx_trusted[] = {
	"libc.so", "ld-linux", "libstdc++.so", "libgcc_s.so", "libm.so", "libpthread.so", "libdl.so", "librt.so",
	"linux-vdso", "libstdbg", NULL,
};
static const char *const ctx_sanitizers[] = {"libasan", "libtsan", "libmsan", "libhwasan", "liblsan", NULL};

static int name_has(const char *name, const char *const *list)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	for (int i = 0; list[i]; i++)
		if (strstr(base, list[i]))
			return 1;
	return 0;
}

static int ctx_denied_name(const char *s)
{
	for (int i = 0; ctx_denied[i]; i++)
		if (strcmp(s, ctx_denied[i]) == 0)
			return 1;
	return 0;
}

/* ctx_relocs reports whether a table of relocations refers to a denied
 * symbol the object imports. */
static int ctx_relocs(const ElfW(Rela) * r, size_t bytes, const ElfW(Sym) * sym, const char *str)
{
	for (size_t i = 0; i < bytes / sizeof *r; i++) {
		size_t k = ELF64_R_SYM(r[i].r_info);
		if (k == 0 || sym[k].st_shndx != SHN_UNDEF)
			continue;
		if (ctx_denied_name(str + sym[k].st_name))
			return 1;
	}
	return 0;
}

static int ctx_scan(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	int *denied = data;
	const char *name = info->dlpi_name ? info->dlpi_name : "";
	if (name_has(name, ctx_sanitizers)) {
		*denied = 1;
		return 1;
	}
	if (name[0] && name_has(name, ctx_trusted))
		return 0;
	const ElfW(Dyn) *dyn = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	if (!dyn)
		return 0;
	uintptr_t strtab = 0, symtab = 0, rela = 0, jmprel = 0;
	size_t relasz = 0, pltsz = 0;
	int pltrela = 1;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		switch (dyn->d_tag) {
		case DT_STRTAB: strtab = dyn->d_un.d_ptr; break;
		case DT_SYMTAB: symtab = dyn->d_un.d_ptr; break;
		case DT_RELA: rela = dyn->d_un.d_ptr; break;
		case DT_RELASZ: relasz = dyn->d_un.d_val; break;
		case DT_JMPREL: jmprel = dyn->d_un.d_ptr; break;
		case DT_PLTRELSZ: pltsz = dyn->d_un.d_val; break;
		case DT_PLTREL: pltrela = dyn->d_un.d_val == DT_RELA; break;
		}
	}
	if (!strtab || !symtab || !pltrela) {
		*denied = !pltrela; /* not the x86-64 layout: do not guess */
		return *denied;
	}
	/* The loader relocates these addresses in place, except in objects
	 * whose dynamic section is read-only. */
	uintptr_t base = info->dlpi_addr;
	if (strtab < base)
		strtab += base, symtab += base, rela += rela ? base : 0, jmprel += jmprel ? base : 0;
	const ElfW(Sym) *sym = (const ElfW(Sym) *)symtab;
	const char *str = (const char *)strtab;
	if ((rela && ctx_relocs((const ElfW(Rela) *)rela, relasz, sym, str)) ||
	    (jmprel && ctx_relocs((const ElfW(Rela) *)jmprel, pltsz, sym, str))) {
		*denied = 1;
		return 1;
	}
	return 0;
}

/* ctx_decide turns contexts on for this child if it may use them. Called
 * before the pool starts, so before the snapshot. */
static void ctx_decide(struct thr *main_thr)
{
	if (!CTX_SUPPORTED || (g_flags & STDBG_F_NO_CTX) || !main_thr)
		return;
	int denied = 0;
	dl_iterate_phdr(ctx_scan, &denied);
	if (denied)
		return;
	g_ctx_wrfs = (getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE) != 0;
	g_ctx_main_fs = (uintptr_t)pthread_self();
	main_thr->ctx = 1;
	main_thr->cfs = g_ctx_main_fs;
	g_ctx = 1;
}

/* ctx_fpu stores the calling thread's x87 control word and MXCSR, as
 * stdbg_ctx_swap saves them. */
static void ctx_fpu(uint64_t *fcw, uint64_t *mxcsr)
{
	*fcw = 0x037f;
	*mxcsr = 0x1f80;
#if defined(__x86_64__)
	uint16_t cw;
	uint32_t m;
	__asm__ volatile("fnstcw %0" : "=m"(cw));
	__asm__ volatile("stmxcsr %0" : "=m"(m));
	*fcw = cw;
	*mxcsr = m;
#endif
}

/* ctx_frame lays out, below top, what stdbg_ctx_swap pops to start fn(arg)
 * in a new context; returns the stack pointer to swap to. */
static uintptr_t ctx_frame(uintptr_t top, void (*fn)(void *), void *arg)
{
	uintptr_t base = ((top - 128) & ~(uintptr_t)15) - 8; /* 8 mod 16: fn is called with a 16-aligned stack */
	uint64_t *f = (uint64_t *)base;
	memset(f, 0, 72);
	ctx_fpu(&f[0], &f[1]); /* the caller's x87 control word and MXCSR */
	f[4] = (uint64_t)(uintptr_t)arg; /* r13 */
	f[5] = (uint64_t)(uintptr_t)fn;  /* r12 */
	f[8] = (uint64_t)(uintptr_t)stdbg_ctx_boot;
	return base;
}

static void ctx_after(void);
static void ctx_run(uintptr_t *save, struct thr *t);

/* ctx_idle_loop is the runner with no context to run: it waits until a
 * thread that is not a context names one, and runs it. */
static void ctx_idle_loop(void *arg)
{
	(void)arg;
	ctx_after();
	for (;;) {
		struct timespec ts = {0, LIFELINE_MS * 1000000L};
		struct thr *t;
		while (!(t = __atomic_exchange_n(&g_ctx_next, NULL, __ATOMIC_ACQ_REL))) {
			sys_futex(&g_ctx_wake, FUTEX_WAIT_PRIVATE, 0, &ts);
			__atomic_store_n(&g_ctx_wake, 0, __ATOMIC_RELAXED);
			if (!__atomic_load_n(&g_ctx_next, __ATOMIC_ACQUIRE))
				lifeline();
		}
		ctx_run(&g_ctx_idle_sp, t);
	}
}

/* ctx_target returns the stack pointer to swap to for t: where it left
 * off, or a new start if it has not run yet. */
static uintptr_t ctx_target(struct thr *t)
{
	if (t->lazy) {
		struct pool_slot *s = &g_pool->slot[t->tid - 2];
		t->lazy = 0;
		s->boot = 1;
		/* Below the frame of pool_main that the boot jumps back to
		 * (which gives it its creator's floating-point control words
		 * before its start routine, pool_fresh_fpu). */
		t->csp = ctx_frame((uintptr_t)s->jb[2] - 512, pool_ctx_boot, s);
	}
	return t->csp;
}

/* ctx_run saves the running stack's place in *save and runs context t;
 * returns when something swaps back to *save. */
static void ctx_run(uintptr_t *save, struct thr *t)
{
	stdbg_current_tid = t->tid;
	uintptr_t sp = ctx_target(t);
	stdbg_ctx_swap(save, sp, t->cfs, g_ctx_wrfs);
	ctx_after();
}

/* ctx_switch suspends me (the running context) and runs t; returns when
 * me is resumed. A finished me is never resumed (or, with g_ctx_demote
 * set, resumed on its own kernel thread). */
static void ctx_switch(struct thr *me, struct thr *t) { ctx_run(&me->csp, t); }

/* ctx_to_idle suspends me and lets the runner wait for a context to be
 * named (the turn went to a thread that is not one). */
static void ctx_to_idle(struct thr *me)
{
	uintptr_t sp = g_ctx_idle_sp;
	if (!sp) {
		sp = ctx_frame((uintptr_t)g_pool->idle + sizeof g_pool->idle, ctx_idle_loop, NULL);
	}
	stdbg_ctx_swap(&me->csp, sp, g_ctx_main_fs, g_ctx_wrfs);
	ctx_after();
}

/* ctx_name gives the turn to context t from a thread that is not one: the
 * runner, waiting on its idle stack, switches to it. */
static void ctx_name(struct thr *t)
{
	__atomic_store_n(&g_ctx_next, t, __ATOMIC_RELEASE);
	__atomic_store_n(&g_ctx_wake, 1, __ATOMIC_SEQ_CST);
	sys_futex(&g_ctx_wake, FUTEX_WAKE_PRIVATE, 1, NULL);
}

/* ctx_after runs on the context just resumed: it completes what the one
 * that left asked for. */
static void ctx_after(void)
{
	struct thr *d = g_ctx_demote;
	if (!d)
		return;
	g_ctx_demote = NULL;
	struct pool_slot *s = &g_pool->slot[d->tid - 2];
	s->demote_sp = d->csp;
	__atomic_store_n(&s->go, 2, __ATOMIC_SEQ_CST);
	sys_futex(&s->go, FUTEX_WAKE_PRIVATE, 1, NULL);
}

/* ctx_handoff gives the turn from context me to t, as give_turn and
 * wait_turn do for threads. A finished me is left for good; one that must
 * end as a thread (it calls pthread_exit, or keys were created) is
 * demoted, and this returns on its own kernel thread. */
static void ctx_handoff(struct thr *me, struct thr *t)
{
	if (me->finished) {
		int demote = me->pooled && (g_keys_used || g_pool->slot[me->tid - 2].dead);
		if (demote)
			g_ctx_demote = me;
		else if (me->pooled && __call_tls_dtors)
			__call_tls_dtors(); /* as its pooled thread would, after its start routine */
	}
	if (t->ctx) {
		ctx_switch(me, t);
	} else {
		give_turn(t);
		ctx_to_idle(me);
	}
	if (me->finished)
		return;
	stdbg_current_tid = me->tid;
	if (me->die)
		reuse_obey(me);
}

/* ctx_leave is where context me goes when it has nothing left to run
 * (its thread finished with nobody named to run next): the runner waits
 * for the checker's next word on the idle stack. */
static void __attribute__((noreturn)) ctx_leave(struct thr *me)
{
	ctx_to_idle(me);
	fatal("a finished context was resumed");
}
