/* stdbg wire protocol, version 1: the C side. The Go side is package wire;
 * docs/protocol.md describes both. All integers are little endian.
 *
 * Two channels connect the checker and a target process:
 *  - the control socket (SOCK_SEQPACKET, one message per packet) carries the
 *    HELLO of the fork server and the checker's FORK and QUIT commands;
 *  - the mailbox, a shared memory file with two slots, carries the messages
 *    of one execution. Execution generation g uses slot g % 2, so a child
 *    of the previous generation (reaped before the next fork) can never
 *    scribble on the slot in use.
 * Within a slot the two sides alternate: the runtime appends messages to
 * `up` and bumps up_seq; the checker answers in `down` and bumps down_seq.
 */
#ifndef STDBG_WIRE_H
#define STDBG_WIRE_H

#include <stdint.h>

#define STDBG_PROTOCOL_VERSION 1
#define STDBG_MAGIC 0x47424453u /* "SDBG" */

#define STDBG_SLOT_SIZE (512 * 1024)
#define STDBG_DOWN_CAP 4096
#define STDBG_HDR_SIZE 128
#define STDBG_UP_CAP (STDBG_SLOT_SIZE - STDBG_HDR_SIZE - STDBG_DOWN_CAP)

/* Slot flags, set by the checker in FORK. */
#define STDBG_F_FAST_EXIT 1u /* leave with _exit at once after exit, failures */
#define STDBG_F_STACKS 2u    /* attach a full backtrace to every PENDING */
#define STDBG_F_STATE 4u     /* send M_STATE with every hand-over (stateful search) */
#define STDBG_F_NO_SPIN 8u   /* the checker shares this process's CPU: wait for it without spinning */
#define STDBG_F_ONE_CPU 16u  /* the threads share one CPU: hand over between them without spinning */
#define STDBG_F_REUSE 32u    /* answer RESET by starting the next execution in the same child */
#define STDBG_F_NO_CTX 64u   /* no contexts: the pool's threads hand over through the kernel (rt/context.c) */

struct stdbg_slot {
	uint32_t magic;
	uint32_t version;
	uint32_t gen;              /* generation of the execution using the slot */
	uint32_t flags;            /* STDBG_F_* */
	uint32_t up_seq;           /* futex: runtime -> checker hand-over count */
	uint32_t down_seq;         /* futex: checker -> runtime hand-over count */
	uint32_t up_len;           /* bytes of messages in up */
	uint32_t down_len;         /* bytes of messages in down */
	uint32_t checker_sleeping; /* checker waits in futex on up_seq */
	uint32_t runtime_sleeping; /* runtime waits in futex on down_seq */
	uint32_t pid;              /* pid of the child running the generation */
	uint32_t dead_gen;         /* set by the fork server when it reaped gen */
	int32_t dead_status;       /* wait status of that child */
	uint32_t checker_cpu;      /* 1 + the CPU the checker answered from (0: unknown) */
	uint32_t runtime_cpu;      /* 1 + the CPU the runtime handed over from (0: unknown) */
	uint32_t pad[17];
	uint8_t down[STDBG_DOWN_CAP];
	uint8_t up[STDBG_UP_CAP];
};

_Static_assert(sizeof(struct stdbg_slot) == STDBG_SLOT_SIZE, "slot layout");

/* Every message starts with this header; len counts the payload only. */
struct stdbg_msg_hdr {
	uint16_t type;
	uint16_t reserved;
	uint32_t len;
};

enum stdbg_msg_type {
	/* runtime -> checker, in the mailbox */
	M_PENDING = 1, /* a thread reached a scheduling point */
	M_FAILURE = 2, /* assertion, signal, abort: the execution is over */
	M_STACK = 3,   /* answer to a stack request (SIGSTACK) */
	M_NOTE = 4,    /* a one-line diagnostic from the runtime */
	M_DONE = 5,    /* a thread finished (payload: u32 tid) */
	M_STATE = 6,   /* the program state at the hand-over (STDBG_F_STATE) */
	M_STEP = 7,    /* in a batch: the messages of one step end here (no payload) */
	M_ACCESS = 9,  /* plain memory accesses a thread made since its last scheduling point */
	/* runtime -> checker, on the control socket */
	M_HELLO = 8,
	/* checker -> runtime, in the mailbox */
	M_RUN = 16,
	M_RESET = 19, /* reset the child and report the next execution's start (STDBG_F_REUSE) */
	M_RUN_BATCH = 20, /* the decisions of the next steps, followed without a hand-over each */
	/* checker -> runtime, on the control socket */
	M_FORK = 17,
	M_QUIT = 18,
};

/* M_PENDING payload: fixed part, then nframes u64 return addresses. */
struct stdbg_pending {
	uint32_t tid;
	uint32_t ostid; /* the kernel thread id, for debuggers and signals */
	uint16_t kind;  /* K_* of stdbg_ops.h */
	uint16_t api;   /* A_* of stdbg_ops.h */
	uint32_t nframes;
	uint64_t obj;
	uint64_t obj2;
	int64_t arg;
};

/* An optional part of a PENDING payload, after the spin report (sent
 * empty if there is none): what an atomic store or read-modify-write
 * stores, for traces only (the checker's model never sees it). */
struct stdbg_operand {
	uint32_t op; /* OPERAND_* */
	uint32_t pad;
	uint64_t v; /* the value stored, the operand, a compare-and-swap's expected value */
	uint64_t w; /* a compare-and-swap's desired value */
};

enum stdbg_operand_op {
	OPERAND_STORE = 1,
	OPERAND_EXCHANGE = 2,
	OPERAND_ADD = 3,
	OPERAND_SUB = 4,
	OPERAND_AND = 5,
	OPERAND_OR = 6,
	OPERAND_XOR = 7,
	OPERAND_NAND = 8,
	OPERAND_CAS = 9
};

enum stdbg_failure_kind {
	FAIL_ASSERT = 1, /* assert() / __assert_fail */
	FAIL_SIGNAL = 2, /* fatal signal */
	FAIL_ABORT = 3,  /* abort() */
	FAIL_USER = 4,   /* stdbg_assert */
	FAIL_RUNTIME = 5 /* the runtime itself gave up (message says why) */
};

/* M_ACCESS payload: tid, n, then n struct stdbg_access. Sent in a
 * library started with STDBG_MEM_LOG=1, where plain loads and stores are
 * not scheduling points: the accesses a thread made since its last
 * scheduling point, at most one entry per address, size and direction (the
 * first), before the thread's next PENDING or FAILURE (or earlier, in
 * parts, when many addresses were touched). */
struct stdbg_accesses {
	uint32_t tid;
	uint32_t n;
};

struct stdbg_access {
	uint64_t addr;
	uint64_t pc;    /* the return address into the code that made it */
	uint32_t size;
	uint32_t write; /* 1: a store */
};

/* M_FAILURE payload: fixed part, nframes u64 addresses (frame 0 exact for a
 * signal, return addresses after), then three strings, each u32 length and
 * bytes: message, file, function. */
struct stdbg_failure {
	uint32_t tid;
	uint16_t kind;
	uint16_t pad;
	int32_t signo;
	uint32_t line;
	uint64_t addr; /* faulting address for a signal */
	uint32_t nframes;
	uint32_t pad2;
};

/* M_STACK payload: tid, nframes, frames. */
struct stdbg_stack {
	uint32_t tid;
	uint32_t nframes;
};

/* M_STATE payload: fixed part, then nprops propositions, each: i32 value,
 * u16 name length, u16 0, name bytes. Sent after the PENDING messages of
 * every hand-over of an execution forked with STDBG_F_STATE. */
struct stdbg_state {
	uint64_t hash;  /* the program's memory: globals, heap blocks, stacks */
	uint32_t flags; /* 1: the program called stdbg_progress() since the last hand-over */
	uint32_t nprops;
};

/* M_RUN payload: the thread that runs next and the result of its op. */
struct stdbg_run {
	uint32_t tid;
	uint32_t pad;
	int64_t code;
};

/* M_RUN_BATCH payload: n, then n struct stdbg_run, the first for the step
 * the answer is for. The runtime follows them without handing the mailbox
 * over: after each step but the last it appends an M_STEP mark and
 * publishes up_len (and bumps up_seq) without waiting, so the checker reads
 * the step's messages while the program goes on. The last step, a failure,
 * or a full mailbox ends the batch with an ordinary hand-over (no mark);
 * the checker then answers as usual. */
#define STDBG_BATCH_MAX 200
struct stdbg_batch {
	uint32_t n;
	uint32_t pad;
};

/* M_FORK payload. */
struct stdbg_fork {
	uint32_t gen;
	uint32_t flags;
	uint32_t pool; /* STDBG_F_REUSE: threads to keep parked for the program (rt/pool.c) */
	uint32_t pad;
};

/* M_HELLO payload: fixed part, then nmods modules, each: u64 bias, u64
 * start, u64 end, u32 path length, path bytes. */
struct stdbg_hello {
	uint32_t version;
	uint32_t pid;
	uint32_t nmods;
	uint32_t pad;
};

#endif
