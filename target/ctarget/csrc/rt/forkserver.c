/* rt/forkserver.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns the fork server: at the first scheduling point the still
 * single-threaded process forks one child per execution the checker asks
 * for, and reports each child's end.
 */

/* ------------------------------------------------------------------ */
/* Fork server                                                         */

/* The threads a child keeps parked for the program (M_FORK, rt/pool.c). */
static int g_pool_want;

struct modbuf {
	uint8_t *p;
	size_t len, cap;
	uint32_t n;
};

static void mb_put(struct modbuf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		size_t c = b->cap ? b->cap * 2 : 4096;
		while (c < b->len + n)
			c *= 2;
		b->p = realloc(b->p, c);
		if (!b->p)
			fatal("out of memory");
		b->cap = c;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static int add_module(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct modbuf *b = data;
	char path[PATH_MAX];
	const char *name = info->dlpi_name;
	if (!name || !*name) {
		ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
		if (n <= 0)
			return 0;
		path[n] = 0;
		name = path;
	}
	if (name[0] != '/')
		return 0; /* the vdso and friends have no file */
	uint64_t lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uint64_t a = info->dlpi_addr + ph->p_vaddr;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
	}
	if (hi == 0)
		return 0;
	uint64_t bias = info->dlpi_addr;
	uint32_t plen = (uint32_t)strlen(name);
	mb_put(b, &bias, 8);
	mb_put(b, &lo, 8);
	mb_put(b, &hi, 8);
	mb_put(b, &plen, 4);
	mb_put(b, name, plen);
	b->n++;
	return 0;
}

static void send_hello(void)
{
	struct modbuf mods = {0};
	dl_iterate_phdr(add_module, &mods);
	struct stdbg_hello h = {STDBG_PROTOCOL_VERSION, (uint32_t)getpid(), mods.n, 0};
	size_t total = sizeof(struct stdbg_msg_hdr) + sizeof h + mods.len;
	uint8_t *buf = malloc(total);
	if (!buf)
		fatal("out of memory");
	struct stdbg_msg_hdr mh = {M_HELLO, 0, (uint32_t)(sizeof h + mods.len)};
	memcpy(buf, &mh, sizeof mh);
	memcpy(buf + sizeof mh, &h, sizeof h);
	memcpy(buf + sizeof mh + sizeof h, mods.p, mods.len);
	if (send(g_ctl, buf, total, MSG_NOSIGNAL) != (ssize_t)total)
		die_now(70);
	free(buf);
	free(mods.p);
}

/* A child of the fork server: the execution of one generation. */
struct kid {
	pid_t pid;  /* 0: none */
	int pidfd;  /* -1 when the kernel has no pidfd_open */
	uint32_t gen;
	struct stdbg_slot *slot;
};

static struct kid g_kids[2]; /* indexed by generation parity */

static int pidfd_open_compat(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

/* reap waits for a child (blocking or not) and reports its death in its
 * slot. Returns 1 when the child is gone. */
static int reap(struct kid *k, int block)
{
	if (k->pid == 0)
		return 1;
	int status = 0;
	pid_t r;
	do
		r = waitpid(k->pid, &status, __WALL | (block ? 0 : WNOHANG));
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return 0;
	k->slot->dead_status = status;
	__atomic_store_n(&k->slot->dead_gen, k->gen, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&k->slot->up_seq, 1, __ATOMIC_SEQ_CST);
	sys_futex(&k->slot->up_seq, FUTEX_WAKE, INT_MAX, NULL);
	if (k->pidfd >= 0)
		close(k->pidfd);
	k->pid = 0;
	k->pidfd = -1;
	return 1;
}

/* server_quit ends the fork server and its children. A child parked
 * between executions (reset, waiting for its next turn) would otherwise
 * notice only at its next lifeline check that the server is gone, and the
 * checker, which waits for every holder of the program's output to close
 * it, would wait with it. The children are killed and reaped first, so
 * that when the server's own exit is seen nothing of the program runs. */
static void __attribute__((noreturn)) server_quit(void)
{
	for (int i = 0; i < 2; i++)
		if (g_kids[i].pid)
			kill(g_kids[i].pid, SIGKILL);
	for (int i = 0; i < 2; i++) {
		if (!g_kids[i].pid)
			continue;
		pid_t r;
		do
			r = waitpid(g_kids[i].pid, NULL, __WALL);
		while (r < 0 && errno == EINTR);
	}
	die_now(0);
}

/* server_start turns the process into the fork server and returns in a
 * child, as the execution the checker asked for.
 *
 * Generation g uses slot g % 2. The server forks generation g as soon as
 * the child of generation g-2 (the previous user of the slot) is reaped,
 * without waiting for generation g-1 to finish dying: the checker kills an
 * execution and asks for the next one at once, and the dying child's
 * teardown overlaps with the next fork. Deaths are noticed through pidfds. */
static void data_ranges(void);

static void server_start(void)
{
	fflush(NULL);
	state_init();
	data_ranges(); /* once, here: a reused child's snapshot keeps them */
	send_hello();
	g_server_pid = getpid();
	g_kids[0].pidfd = g_kids[1].pidfd = -1;
	for (;;) {
		struct pollfd fds[3];
		int nk = 0;
		struct kid *which[2];
		fds[0].fd = g_ctl;
		fds[0].events = POLLIN;
		for (int i = 0; i < 2; i++) {
			if (g_kids[i].pid != 0 && g_kids[i].pidfd >= 0) {
				fds[1 + nk].fd = g_kids[i].pidfd;
				fds[1 + nk].events = POLLIN;
				which[nk++] = &g_kids[i];
			}
		}
		if (poll(fds, (nfds_t)(1 + nk), -1) < 0) {
			if (errno == EINTR)
				continue;
			die_now(70);
		}
		for (int i = 0; i < nk; i++)
			if (fds[1 + i].revents)
				reap(which[i], 0);
		if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		uint8_t buf[64];
		ssize_t n = recv(g_ctl, buf, sizeof buf, 0);
		if (n <= 0)
			server_quit(); /* the checker went away */
		struct stdbg_msg_hdr h;
		if ((size_t)n < sizeof h)
			die_now(70);
		memcpy(&h, buf, sizeof h);
		if (h.type == M_QUIT)
			server_quit();
		if (h.type != M_FORK || (size_t)n < sizeof h + 8)
			die_now(70);
		struct stdbg_fork f = {0};
		memcpy(&f, buf + sizeof h, (size_t)n - sizeof h < sizeof f ? (size_t)n - sizeof h : sizeof f);
		struct kid *k = &g_kids[f.gen & 1];
		reap(k, 1); /* the slot's previous user must be gone */
		struct stdbg_slot *slot = (struct stdbg_slot *)(g_mailbox + (size_t)(f.gen & 1) * STDBG_SLOT_SIZE);
		pid_t pid = real_fork();
		if (pid < 0)
			die_now(70);
		if (pid == 0) {
			for (int i = 0; i < 2; i++)
				if (g_kids[i].pidfd >= 0)
					close(g_kids[i].pidfd);
			g_started = 1;
			g_gen = f.gen;
			g_flags = f.flags;
			g_slot = slot;
			__atomic_store_n(&slot->pid, (uint32_t)getpid(), __ATOMIC_SEQ_CST);
			self->ostid = (pid_t)syscall(SYS_gettid);
			stdbg_thread_ostids[1] = self->ostid;
			g_pool_want = (int)f.pool; /* 0 in a FORK without it */
			if ((f.flags & STDBG_F_REUSE) && __builtin_setjmp(g_reset_jb) == 0)
				reuse_snapshot();
			return;
		}
		k->pid = pid;
		k->gen = f.gen;
		k->slot = slot;
		k->pidfd = pidfd_open_compat(pid);
		if (k->pidfd < 0)
			reap(k, 1); /* no pidfds: wait for this child now */
	}
}
