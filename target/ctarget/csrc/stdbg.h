/* stdbg.h: annotations for programs checked by stdbg.
 *
 * Every function here is harmless when the program runs without stdbg:
 * stdbg_yield() yields, the memory annotations do nothing, stdbg_choose(n)
 * returns 0 and stdbg_assert() behaves like assert() with a message. Under
 * stdbg they become scheduling points the checker controls.
 *
 *   stdbg_yield();                     let the checker switch threads here
 *   stdbg_read(&x, sizeof x);          about to read shared memory at &x
 *   stdbg_write(&x, sizeof x);         about to write shared memory at &x
 *   stdbg_atomic_read(&a, sizeof a);   about to load atomic a
 *   stdbg_atomic_write(&a, sizeof a);  about to store to atomic a
 *   int i = stdbg_choose(3);           0, 1 or 2: the checker tries every value
 *   stdbg_assert(a + b == 2, "conservation of tokens");
 *   stdbg_progress();                  the program made progress (livelock checks)
 *   stdbg_prop("r", &r);               int r is proposition r of --ltl formulas
 *
 * Two plain accesses (stdbg_read, stdbg_write) of different threads to the
 * same bytes, one a write, that no synchronization orders are a data race,
 * which stdbg reports; atomic accesses never race with each other.
 *
 * Link nothing extra: the entry points are looked up at run time.
 */
#ifndef STDBG_H
#define STDBG_H

#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* stdbg.h's own variables (the entry points looked up once) are not the
 * program's shared memory: a build with stdbg's memory instrumentation
 * (-fsanitize=thread) leaves them out. */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 8)
#define STDBG__NOSAN __attribute__((no_sanitize("thread")))
#elif defined(__GNUC__)
#define STDBG__NOSAN __attribute__((no_sanitize_thread))
#else
#define STDBG__NOSAN
#endif

static inline STDBG__NOSAN void *stdbg__sym(const char *name)
{
	/* RTLD_DEFAULT without requiring _GNU_SOURCE. */
	return dlsym((void *)0, name);
}

/* The scheduling annotations are never inlined: the address they return
 * to is the line of the user's code that stdbg shows for their step. */
#define STDBG__POINT static __attribute__((noinline, unused)) STDBG__NOSAN

STDBG__POINT void stdbg_yield(void)
{
	static void (*fn)(void *);
	static int looked;
	if (!looked) {
		*(void **)&fn = stdbg__sym("stdbg_rt_yield_at");
		looked = 1;
	}
	if (fn)
		fn(__builtin_return_address(0));
	else
		sched_yield();
}

STDBG__POINT void stdbg_read(const volatile void *addr, unsigned long size)
{
	static void (*fn)(const volatile void *, unsigned long, void *);
	static int looked;
	if (!looked) {
		*(void **)&fn = stdbg__sym("stdbg_rt_read_at");
		looked = 1;
	}
	if (fn)
		fn(addr, size, __builtin_return_address(0));
}

STDBG__POINT void stdbg_write(const volatile void *addr, unsigned long size)
{
	static void (*fn)(const volatile void *, unsigned long, void *);
	static int looked;
	if (!looked) {
		*(void **)&fn = stdbg__sym("stdbg_rt_write_at");
		looked = 1;
	}
	if (fn)
		fn(addr, size, __builtin_return_address(0));
}

/* stdbg_atomic_read and stdbg_atomic_write annotate atomic accesses
 * (C11 atomics, __atomic builtins): scheduling points like stdbg_read and
 * stdbg_write, but never a data race; a load acquires what the last store
 * to the same bytes released. */
STDBG__POINT void stdbg_atomic_read(const volatile void *addr, unsigned long size)
{
	static void (*fn)(const volatile void *, unsigned long, void *);
	static int looked;
	if (!looked) {
		*(void **)&fn = stdbg__sym("stdbg_rt_atomic_read_at");
		looked = 1;
	}
	if (fn)
		fn(addr, size, __builtin_return_address(0));
}

STDBG__POINT void stdbg_atomic_write(const volatile void *addr, unsigned long size)
{
	static void (*fn)(const volatile void *, unsigned long, void *);
	static int looked;
	if (!looked) {
		*(void **)&fn = stdbg__sym("stdbg_rt_atomic_write_at");
		looked = 1;
	}
	if (fn)
		fn(addr, size, __builtin_return_address(0));
}

STDBG__POINT int stdbg_choose(int n)
{
	static int (*fn)(int, void *);
	static int looked;
	if (!looked) {
		*(void **)&fn = stdbg__sym("stdbg_rt_choose_at");
		looked = 1;
	}
	return fn ? fn(n, __builtin_return_address(0)) : 0;
}

/* stdbg_progress marks progress: stdbg find --livelock reports cycles of
 * states in which no thread calls it. Does nothing without stdbg. */
static inline STDBG__NOSAN void stdbg_progress(void)
{
	static void (*fn)(void);
	static int looked;
	if (!looked) {
		*(void **)&fn = stdbg__sym("stdbg_rt_progress");
		looked = 1;
	}
	if (fn)
		fn();
}

/* stdbg_prop names an int variable as a proposition of --ltl formulas
 * (true when non-zero). name must stay valid. Does nothing without stdbg. */
static inline STDBG__NOSAN void stdbg_prop(const char *name, const volatile int *addr)
{
	void (*fn)(const char *, const volatile int *);
	*(void **)&fn = stdbg__sym("stdbg_rt_prop");
	if (fn)
		fn(name, addr);
}

static inline STDBG__NOSAN void stdbg__assert_fail(const char *msg, const char *file, unsigned line, const char *func)
{
	void (*fn)(const char *, const char *, unsigned, const char *);
	*(void **)&fn = stdbg__sym("stdbg_rt_assert_fail");
	if (fn)
		fn(msg, file, line, func);
	fprintf(stderr, "%s:%u: %s: stdbg_assert failed: %s\n", file, line, func, msg);
	abort();
}

#define stdbg_assert(cond, msg)                                                                             \
	((cond) ? (void)0 : stdbg__assert_fail((msg), __FILE__, __LINE__, __func__))

#ifdef __cplusplus
}
#endif

#endif
