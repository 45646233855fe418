/* libstdbg: the stdbg interposition library for C and C++ targets.
 *
 * Loaded with LD_PRELOAD into an unmodified, dynamically linked program, it
 * intercepts the thread API (POSIX threads, C11 threads, and through them
 * C++ std::thread/mutex/condition_variable), turns every call into a
 * scheduling point, and lets exactly one thread run at a time: the one the
 * checker picks. The semantics of the calls (who may run, what a call
 * returns, what is a misuse) are decided by the checker's Go model; this
 * library reports operations, obeys and returns what it is told.
 *
 * Without STDBG_CTL in the environment the library is inert: every call
 * goes straight to the real implementation.
 *
 * Process structure: at the first scheduling point of the main thread (the
 * process is still single-threaded) the library becomes a fork server. Each
 * execution the checker asks for is a fork of that point; the server reaps
 * it and reports its death in the mailbox (see stdbg_wire.h).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <malloc.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <threads.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "stdbg_ops.h"
#include "stdbg_wire.h"

#define EXPORT __attribute__((visibility("default")))
#define MAXFRAMES 48
#define ALTSTACK_SIZE (64 * 1024) /* each thread's signal stack */
#define LIFELINE_MS 100

/* The library is one translation unit, in parts by concern (each says what
 * it owns at its top), in this order: later parts use what earlier ones
 * define. */
#include "rt/core.c"
#include "rt/wire.c"
#include "rt/spin.c"
#include "rt/memlog.c"
#include "rt/replay.c"
#include "rt/forkserver.c"
#include "rt/pool.c"
#include "rt/context.c"
#include "rt/reuse.c"
#include "rt/reset.c"
#include "rt/signals.c"
#include "rt/init.c"
#include "rt/threads.c"
#include "rt/mutex.c"
#include "rt/cond.c"
#include "rt/sem.c"
#include "rt/rwlock.c"
#include "rt/barrier.c"
#include "rt/sched.c"
#include "rt/exit.c"
#include "rt/c11.c"
#include "rt/annotations.c"
#include "rt/state.c"
