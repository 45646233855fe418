/* rt/signals.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns crash and signal handling: fatal signals become crash reports with the
 * failing thread's stack (each thread gets a signal stack of its own), and
 * a signal asks a blocked thread for its stack, for the reports.
 */

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
