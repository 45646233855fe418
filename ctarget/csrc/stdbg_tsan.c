/* stdbg_tsan.c: the entry points of the compiler's thread-sanitizer
 * instrumentation (-fsanitize=thread), linked into programs stdbg builds
 * instead of the sanitizer's runtime.
 *
 * Every load and store the compiler could not prove thread-local calls one
 * of the __tsan_* functions below; so do atomic operations (C11 atomics,
 * the __atomic and __sync builtins, std::atomic), which the function must
 * perform itself. Each reports the access to stdbg's library
 * (stdbg_rt_mem, looked up at run time), which makes it a scheduling point
 * when it touches memory that threads can share, then returns; an atomic
 * operation is then performed, sequentially consistent. Without stdbg the
 * program runs as if it were not instrumented.
 *
 * This file is compiled without the instrumentation. */
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

/* What an access does, as stdbg_rt_mem takes it. */
enum { MEM_READ, MEM_WRITE, MEM_ATOMIC_LOAD, MEM_ATOMIC_STORE, MEM_ATOMIC_RMW };

typedef void (*mem_hook)(const volatile void *addr, unsigned long size, int kind, void *ra);

/* A marker stdbg looks for to tell an instrumented binary. */
const char stdbg_memory_instrumented[] = "stdbg: memory accesses instrumented";

static mem_hook hook;
static int looked;

static void report(const volatile void *addr, unsigned long size, int kind, void *ra)
{
	mem_hook h = __atomic_load_n(&hook, __ATOMIC_RELAXED);
	if (!h) {
		if (__atomic_load_n(&looked, __ATOMIC_RELAXED))
			return;
		*(void **)&h = dlsym(RTLD_DEFAULT, "stdbg_rt_mem");
		__atomic_store_n(&hook, h, __ATOMIC_RELAXED);
		__atomic_store_n(&looked, 1, __ATOMIC_RELAXED);
		if (!h)
			return;
	}
	h(addr, size, kind, ra);
}

/* Looked up before main: the stdbg library's constructors ran already
 * (a preloaded library is initialised before the program), and a child
 * that stdbg reuses for many executions puts its memory back to a
 * snapshot taken after main started, which then holds the hook found,
 * instead of looking it up again in every execution. */
__attribute__((constructor)) static void look_up_hook(void)
{
	*(void **)&hook = dlsym(RTLD_DEFAULT, "stdbg_rt_mem");
	looked = 1;
}

#define RA __builtin_return_address(0)

void __tsan_init(void) {}
void __tsan_func_entry(void *pc) { (void)pc; }
void __tsan_func_exit(void) {}
void __tsan_ignore_thread_begin(void) {}
void __tsan_ignore_thread_end(void) {}

#define PLAIN(n)                                                                                            \
	void __tsan_read##n(void *a) { report(a, n, MEM_READ, RA); }                                        \
	void __tsan_write##n(void *a) { report(a, n, MEM_WRITE, RA); }                                      \
	void __tsan_unaligned_read##n(void *a) { report(a, n, MEM_READ, RA); }                              \
	void __tsan_unaligned_write##n(void *a) { report(a, n, MEM_WRITE, RA); }                            \
	void __tsan_volatile_read##n(void *a) { report(a, n, MEM_READ, RA); }                               \
	void __tsan_volatile_write##n(void *a) { report(a, n, MEM_WRITE, RA); }                             \
	void __tsan_unaligned_volatile_read##n(void *a) { report(a, n, MEM_READ, RA); }                     \
	void __tsan_unaligned_volatile_write##n(void *a) { report(a, n, MEM_WRITE, RA); }                   \
	void __tsan_read##n##_pc(void *a, void *pc) { report(a, n, MEM_READ, pc); }                         \
	void __tsan_write##n##_pc(void *a, void *pc) { report(a, n, MEM_WRITE, pc); }
PLAIN(1)
PLAIN(2)
PLAIN(4)
PLAIN(8)
PLAIN(16)

void __tsan_read_range(void *a, unsigned long n) { report(a, n, MEM_READ, RA); }
void __tsan_write_range(void *a, unsigned long n) { report(a, n, MEM_WRITE, RA); }
void __tsan_read_range_pc(void *a, unsigned long n, void *pc) { report(a, n, MEM_READ, pc); }
void __tsan_write_range_pc(void *a, unsigned long n, void *pc) { report(a, n, MEM_WRITE, pc); }
void __tsan_vptr_read(void **p) { report(p, sizeof *p, MEM_READ, RA); }
void __tsan_vptr_update(void **p, void *v)
{
	(void)v;
	report(p, sizeof *p, MEM_WRITE, RA);
}

void *__tsan_memcpy(void *d, const void *s, size_t n)
{
	report(s, n, MEM_READ, RA);
	report(d, n, MEM_WRITE, RA);
	return memcpy(d, s, n);
}

void *__tsan_memmove(void *d, const void *s, size_t n)
{
	report(s, n, MEM_READ, RA);
	report(d, n, MEM_WRITE, RA);
	return memmove(d, s, n);
}

void *__tsan_memset(void *d, int c, size_t n)
{
	report(d, n, MEM_WRITE, RA);
	return memset(d, c, n);
}

/* Atomics: the memory orders are taken as sequentially consistent. */
#define SC __ATOMIC_SEQ_CST
#define ATOMIC(n, T)                                                                                        \
	T __tsan_atomic##n##_load(const volatile T *a, int mo)                                              \
	{                                                                                                   \
		(void)mo;                                                                                   \
		report(a, sizeof(T), MEM_ATOMIC_LOAD, RA);                                                  \
		return __atomic_load_n(a, SC);                                                              \
	}                                                                                                   \
	void __tsan_atomic##n##_store(volatile T *a, T v, int mo)                                           \
	{                                                                                                   \
		(void)mo;                                                                                   \
		report(a, sizeof(T), MEM_ATOMIC_STORE, RA);                                                 \
		__atomic_store_n(a, v, SC);                                                                 \
	}                                                                                                   \
	T __tsan_atomic##n##_exchange(volatile T *a, T v, int mo)                                           \
	{                                                                                                   \
		(void)mo;                                                                                   \
		report(a, sizeof(T), MEM_ATOMIC_RMW, RA);                                                   \
		return __atomic_exchange_n(a, v, SC);                                                       \
	}                                                                                                   \
	T __tsan_atomic##n##_fetch_add(volatile T *a, T v, int mo)                                          \
	{                                                                                                   \
		(void)mo;                                                                                   \
		report(a, sizeof(T), MEM_ATOMIC_RMW, RA);                                                   \
		return __atomic_fetch_add(a, v, SC);                                                        \
	}                                                                                                   \
	T __tsan_atomic##n##_fetch_sub(volatile T *a, T v, int mo)                                          \
	{                                                                                                   \
		(void)mo;                                                                                   \
		report(a, sizeof(T), MEM_ATOMIC_RMW, RA);                                                   \
		return __atomic_fetch_sub(a, v, SC);                                                        \
	}                                                                                                   \
	T __tsan_atomic##n##_fetch_and(volatile T *a, T v, int mo)                                          \
	{                                                                                                   \
		(void)mo;                                                                                   \
		report(a, sizeof(T), MEM_ATOMIC_RMW, RA);                                                   \
		return __atomic_fetch_and(a, v, SC);                                                        \
	}                                                                                                   \
	T __tsan_atomic##n##_fetch_or(volatile T *a, T v, int mo)                                           \
	{                                                                                                   \
		(void)mo;                                                                                   \
		report(a, sizeof(T), MEM_ATOMIC_RMW, RA);                                                   \
		return __atomic_fetch_or(a, v, SC);                                                         \
	}                                                                                                   \
	T __tsan_atomic##n##_fetch_xor(volatile T *a, T v, int mo)                                          \
	{                                                                                                   \
		(void)mo;                                                                                   \
		report(a, sizeof(T), MEM_ATOMIC_RMW, RA);                                                   \
		return __atomic_fetch_xor(a, v, SC);                                                        \
	}                                                                                                   \
	T __tsan_atomic##n##_fetch_nand(volatile T *a, T v, int mo)                                         \
	{                                                                                                   \
		(void)mo;                                                                                   \
		report(a, sizeof(T), MEM_ATOMIC_RMW, RA);                                                   \
		return __atomic_fetch_nand(a, v, SC);                                                       \
	}                                                                                                   \
	int __tsan_atomic##n##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, int fmo)          \
	{                                                                                                   \
		(void)mo, (void)fmo;                                                                        \
		report(a, sizeof(T), MEM_ATOMIC_RMW, RA);                                                   \
		return __atomic_compare_exchange_n(a, c, v, 0, SC, SC);                                     \
	}                                                                                                   \
	int __tsan_atomic##n##_compare_exchange_weak(volatile T *a, T *c, T v, int mo, int fmo)            \
	{                                                                                                   \
		(void)mo, (void)fmo;                                                                        \
		report(a, sizeof(T), MEM_ATOMIC_RMW, RA);                                                   \
		return __atomic_compare_exchange_n(a, c, v, 0, SC, SC);                                     \
	}                                                                                                   \
	T __tsan_atomic##n##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo)                \
	{                                                                                                   \
		(void)mo, (void)fmo;                                                                        \
		report(a, sizeof(T), MEM_ATOMIC_RMW, RA);                                                   \
		__atomic_compare_exchange_n(a, &c, v, 0, SC, SC);                                           \
		return c;                                                                                   \
	}
ATOMIC(8, char)
ATOMIC(16, short)
ATOMIC(32, int)
ATOMIC(64, long long)

void __tsan_atomic_thread_fence(int mo)
{
	(void)mo;
	__atomic_thread_fence(SC);
}

void __tsan_atomic_signal_fence(int mo)
{
	(void)mo;
	__atomic_signal_fence(SC);
}
