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

/* What an access does, as stdbg_rt_mem takes it. MEM_ATOMIC_UNCHANGED
 * follows an atomic store or read-modify-write that left memory as it was
 * (a failed compare-and-swap, an exchange of the value already there): the
 * checker may then take it for a read (docs/spin.md). */
enum { MEM_READ, MEM_WRITE, MEM_ATOMIC_LOAD, MEM_ATOMIC_STORE, MEM_ATOMIC_RMW, MEM_ATOMIC_UNCHANGED };

typedef void (*mem_hook)(const volatile void *addr, unsigned long size, int kind, void *ra);

/* What an atomic store or read-modify-write does with its operands, as
 * stdbg_rt_atomic takes it (OPERAND_* of stdbg_wire.h): shown in traces
 * only, never part of the model. */
enum { OPERAND_STORE = 1, OPERAND_EXCHANGE, OPERAND_ADD, OPERAND_SUB, OPERAND_AND, OPERAND_OR, OPERAND_XOR, OPERAND_NAND, OPERAND_CAS };

typedef void (*atomic_hook)(const volatile void *addr, unsigned long size, int kind, void *ra, unsigned op,
			    unsigned long long v, unsigned long long w);

/* A marker stdbg looks for to tell an instrumented binary. */
const char stdbg_memory_instrumented[] = "stdbg: memory accesses instrumented";

static mem_hook hook;
static atomic_hook ahook;
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

/* report_operand reports an atomic store or read-modify-write with what
 * it stores (v; w, a compare-and-swap's desired value, v its expected
 * one), through stdbg_rt_atomic; the library formats nothing. */
static void report_operand(const volatile void *addr, unsigned long size, int kind, void *ra, unsigned op,
			   unsigned long long v, unsigned long long w)
{
	atomic_hook h = __atomic_load_n(&ahook, __ATOMIC_RELAXED);
	if (!h) {
		report(addr, size, kind, ra);
		return;
	}
	h(addr, size, kind, ra, op, v, w);
}

/* Looked up before main: the stdbg library's constructors ran already
 * (a preloaded library is initialised before the program), and a child
 * that stdbg reuses for many executions puts its memory back to a
 * snapshot taken after main started, which then holds the hook found,
 * instead of looking it up again in every execution. */
__attribute__((constructor)) static void look_up_hook(void)
{
	*(void **)&hook = dlsym(RTLD_DEFAULT, "stdbg_rt_mem");
	*(void **)&ahook = dlsym(RTLD_DEFAULT, "stdbg_rt_atomic");
	looked = 1;
	/* Tell the library that this program is instrumented: what it does
	 * to memory is seen (stdbg_rt_instrumented, rt/spin.c). */
	void (*announce)(void);
	*(void **)&announce = dlsym(RTLD_DEFAULT, "stdbg_rt_instrumented");
	if (announce)
		announce();
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

/* Atomics: the memory orders are taken as sequentially consistent. Each
 * operation is reported before it runs (a scheduling point); a store or a
 * read-modify-write that then leaves memory as it was says so. */
#define SC __ATOMIC_SEQ_CST
#define SAME(a, T) report(a, sizeof(T), MEM_ATOMIC_UNCHANGED, RA)
#define OPERAND(v) ((unsigned long long)(long long)(v))
#define RMW(n, T, name, op, same, code)                                                                     \
	T __tsan_atomic##n##_##name(volatile T *a, T v, int mo)                                             \
	{                                                                                                   \
		(void)mo;                                                                                   \
		report_operand(a, sizeof(T), MEM_ATOMIC_RMW, RA, code, OPERAND(v), 0);                      \
		T old = op(a, v, SC);                                                                       \
		if (same)                                                                                   \
			SAME(a, T);                                                                         \
		return old;                                                                                 \
	}
#define CAS(n, T, kind)                                                                                     \
	int __tsan_atomic##n##_compare_exchange_##kind(volatile T *a, T *c, T v, int mo, int fmo)           \
	{                                                                                                   \
		(void)mo, (void)fmo;                                                                        \
		report_operand(a, sizeof(T), MEM_ATOMIC_RMW, RA, OPERAND_CAS, OPERAND(*c), OPERAND(v));     \
		T want = *c;                                                                                \
		int ok = __atomic_compare_exchange_n(a, c, v, 0, SC, SC);                                   \
		if (!ok || v == want)                                                                       \
			SAME(a, T);                                                                         \
		if (*c != want)                                                                             \
			report(c, sizeof(T), MEM_WRITE, RA); /* the value found, stored */                  \
		return ok;                                                                                  \
	}
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
		report_operand(a, sizeof(T), MEM_ATOMIC_STORE, RA, OPERAND_STORE, OPERAND(v), 0);           \
		T old = __atomic_exchange_n(a, v, SC);                                                      \
		if (old == v)                                                                               \
			SAME(a, T);                                                                         \
	}                                                                                                   \
	RMW(n, T, exchange, __atomic_exchange_n, old == v, OPERAND_EXCHANGE)                                \
	RMW(n, T, fetch_add, __atomic_fetch_add, v == 0, OPERAND_ADD)                                       \
	RMW(n, T, fetch_sub, __atomic_fetch_sub, v == 0, OPERAND_SUB)                                       \
	RMW(n, T, fetch_and, __atomic_fetch_and, (T)(old & v) == old, OPERAND_AND)                          \
	RMW(n, T, fetch_or, __atomic_fetch_or, (T)(old | v) == old, OPERAND_OR)                             \
	RMW(n, T, fetch_xor, __atomic_fetch_xor, v == 0, OPERAND_XOR)                                       \
	RMW(n, T, fetch_nand, __atomic_fetch_nand, (T)~(old & v) == old, OPERAND_NAND)                      \
	CAS(n, T, strong)                                                                                   \
	CAS(n, T, weak)                                                                                     \
	T __tsan_atomic##n##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo)                 \
	{                                                                                                   \
		(void)mo, (void)fmo;                                                                        \
		report_operand(a, sizeof(T), MEM_ATOMIC_RMW, RA, OPERAND_CAS, OPERAND(c), OPERAND(v));      \
		T want = c;                                                                                 \
		__atomic_compare_exchange_n(a, &c, v, 0, SC, SC);                                           \
		if (c != want || v == want)                                                                 \
			SAME(a, T);                                                                         \
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
