/* rt/exit.c: part of libstdbg, compiled into it by libstdbg.c (one
 * translation unit: the parts share its includes and static state).
 *
 * Owns the end of the process (exit, _exit, return from main, exec) and the
 * failures the library reports: assertion failures, aborts, misuse.
 */

/* ------------------------------------------------------------------ */
/* Process exit and failures                                           */

static void do_exit(int status, uint16_t api, void *ra)
{
	sched(K_EXIT, api, NULL, NULL, status, ra);
	if (g_flags & STDBG_F_FAST_EXIT)
		die_now(status);
	g_exiting = 1;
}

/* glibc calls exit() from inside libc when main returns, out of the
 * interposer's reach, so main itself is wrapped. */
static int (*user_main)(int, char **, char **);

static int main_hook(int argc, char **argv, char **envp)
{
	/* The main thread's state, for spin reports, is its stack from here
	 * down (rt/spin.c). */
	if (threads[1])
		threads[1]->spin_hi = (uintptr_t)__builtin_frame_address(0);
	int r = user_main(argc, argv, envp);
	if (active())
		do_exit(r, A_RETURN_FROM_MAIN, (char *)user_main + 1);
	return r;
}

EXPORT int __libc_start_main(int (*main)(int, char **, char **), int argc, char **argv, void (*init)(void),
                             void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
	int (*real)(int (*)(int, char **, char **), int, char **, void (*)(void), void (*)(void), void (*)(void),
	            void *);
	*(void **)&real = dlsym(RTLD_NEXT, "__libc_start_main");
	user_main = main;
	return real(main_hook, argc, argv, init, fini, rtld_fini, stack_end);
}

EXPORT void exit(int status)
{
	if (active())
		do_exit(status, A_EXIT, RA);
	real_exit(status);
}

EXPORT void _exit(int status)
{
	if (active())
		do_exit(status, A__EXIT, RA);
	real__exit(status);
}

/* exec: the checked program's image ends there, as at exit (the new
 * image is not followed: it starts without the checker's descriptors, so
 * the library in it stays inert, and it runs free). The call is taken to
 * succeed when the file can be executed; one that cannot be fails as
 * usual and the program goes on under the checker. During a search the
 * process ends at once; in a replay the new image really runs. */
static int (*real_execve)(const char *, char *const[], char *const[]);
static int (*real_execv)(const char *, char *const[]);
static int (*real_execvp)(const char *, char *const[]);
static int (*real_execvpe)(const char *, char *const[], char *const[]);
static int (*real_fexecve)(int, char *const[], char *const[]);

/* executable reports whether file names something exec could start:
 * with a slash, that file; without, a file of that name on PATH. */
static int executable(const char *file, int search)
{
	if (!file || !*file)
		return 0;
	if (!search || strchr(file, '/'))
		return access(file, X_OK) == 0;
	const char *path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";
	char buf[PATH_MAX];
	for (const char *p = path;;) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n + 1 + strlen(file) + 1 <= sizeof buf) {
			memcpy(buf, n ? p : ".", n ? n : 1);
			size_t k = n ? n : 1;
			buf[k] = '/';
			strcpy(buf + k + 1, file);
			if (access(buf, X_OK) == 0)
				return 1;
		}
		if (!end)
			return 0;
		p = end + 1;
	}
}

static void exec_ends(const char *file, int search, void *ra)
{
	if (active() && executable(file, search))
		do_exit(0, A_EXEC, ra);
}

#define RESOLVE_ONCE(name)                                                  \
	do {                                                                    \
		if (!real_##name)                                               \
			RESOLVE(name);                                          \
	} while (0)

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	RESOLVE_ONCE(execve);
	exec_ends(path, 0, RA);
	return real_execve(path, argv, envp);
}

EXPORT int execv(const char *path, char *const argv[])
{
	RESOLVE_ONCE(execv);
	exec_ends(path, 0, RA);
	return real_execv(path, argv);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	RESOLVE_ONCE(execvp);
	exec_ends(file, 1, RA);
	return real_execvp(file, argv);
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	RESOLVE_ONCE(execvpe);
	exec_ends(file, 1, RA);
	return real_execvpe(file, argv, envp);
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	RESOLVE_ONCE(fexecve);
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	exec_ends(proc, 0, RA);
	return real_fexecve(fd, argv, envp);
}

/* The execl family: their arguments gathered into an array (at most
 * EXECL_MAX of them, as a shell would refuse far fewer). */
#define EXECL_MAX 4096

static int gather(const char *arg, va_list ap, char **argv, char ***envp)
{
	int n = 0;
	argv[n++] = (char *)arg;
	while (arg) {
		if (n == EXECL_MAX) {
			errno = E2BIG;
			return -1;
		}
		arg = va_arg(ap, const char *);
		argv[n++] = (char *)arg;
	}
	if (envp)
		*envp = va_arg(ap, char **);
	return 0;
}

EXPORT int execl(const char *path, const char *arg, ...)
{
	char *argv[EXECL_MAX + 1];
	va_list ap;
	va_start(ap, arg);
	int r = gather(arg, ap, argv, NULL);
	va_end(ap);
	if (r < 0)
		return -1;
	RESOLVE_ONCE(execve);
	exec_ends(path, 0, RA);
	return real_execve(path, argv, environ);
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	char *argv[EXECL_MAX + 1];
	char **envp;
	va_list ap;
	va_start(ap, arg);
	int r = gather(arg, ap, argv, &envp);
	va_end(ap);
	if (r < 0)
		return -1;
	RESOLVE_ONCE(execve);
	exec_ends(path, 0, RA);
	return real_execve(path, argv, envp);
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	char *argv[EXECL_MAX + 1];
	va_list ap;
	va_start(ap, arg);
	int r = gather(arg, ap, argv, NULL);
	va_end(ap);
	if (r < 0)
		return -1;
	RESOLVE_ONCE(execvp);
	exec_ends(file, 1, RA);
	return real_execvp(file, argv);
}

EXPORT void abort(void)
{
	if (active()) {
		uint64_t frames[MAXFRAMES];
		int n = collect(frames, MAXFRAMES);
		report_failure(FAIL_ABORT, SIGABRT, 0, frames, n, "abort() called", "", 0, "");
		if (g_flags & STDBG_F_FAST_EXIT)
			failure_exit(134);
		g_exiting = 1;
	}
	real_abort();
}

EXPORT void __assert_fail(const char *expr, const char *file, unsigned line, const char *func)
{
	if (active()) {
		uint64_t frames[MAXFRAMES];
		int n = collect(frames, MAXFRAMES);
		report_failure(FAIL_ASSERT, SIGABRT, 0, frames, n, expr, file, line, func);
		if (g_flags & STDBG_F_FAST_EXIT)
			failure_exit(134);
		g_exiting = 1;
	}
	real_assert_fail(expr, file, line, func);
}
