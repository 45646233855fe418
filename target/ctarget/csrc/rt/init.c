/* rt/init.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns initialisation: reading STDBG_CTL, mapping the mailbox, choosing
 * between checking, replaying and running inert.
 */

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
	const char *mem = getenv("STDBG_MEM_LOG");
	g_mem_log = mem && strcmp(mem, "1") == 0;
	if (g_mem_log)
		mem_init();
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
	poll_init();
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
