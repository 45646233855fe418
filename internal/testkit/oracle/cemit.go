package oracle

import (
	"fmt"
	"strings"
)

// cHeader starts every C source.
const cHeader = `#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <stdbg.h>

/* A deadline 1 ms ahead, for the timed operations: under stdbg whether
 * they time out is explored, whatever the clock says. */
static const struct timespec *oracle_deadline(void)
{
	static __thread struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return &ts;
}
`

// CSource returns a standalone C program for the C program p; comment (each
// line already prefixed) goes in a comment at its top.
func CSource(p *Program, comment string) (string, error) {
	if p.Lang != C {
		return "", fmt.Errorf("not a C program")
	}
	if err := p.Check(); err != nil {
		return "", err
	}
	var b strings.Builder
	if comment != "" {
		b.WriteString("/*\n" + comment + " */\n")
	}
	b.WriteString(cHeader)
	(&cEmitter{p: p, pre: "p_"}).program(&b)
	b.WriteString("\nint main(void)\n{\n\treturn p_main();\n}\n")
	return b.String(), nil
}

// cBatchSource returns one C program holding several: argv[1] selects the
// one main runs.
func cBatchSource(ps []*Program) string {
	var b strings.Builder
	b.WriteString(cHeader)
	for i, p := range ps {
		(&cEmitter{p: p, pre: fmt.Sprintf("p%d_", i)}).program(&b)
	}
	b.WriteString("\nint main(int argc, char **argv)\n{\n\tswitch (argc > 1 ? atoi(argv[1]) : -1) {\n")
	for i := range ps {
		fmt.Fprintf(&b, "\tcase %d:\n\t\treturn p%d_main();\n", i, i)
	}
	b.WriteString("\t}\n\treturn 2;\n}\n")
	return b.String()
}

// cEmitter writes one program, its names prefixed with pre.
type cEmitter struct {
	p     *Program
	pre   string
	b     *strings.Builder
	onces []string // the once bodies' functions, written after the threads
}

func (e *cEmitter) program(out *strings.Builder) {
	b := &strings.Builder{}
	e.b = b
	pr := e.pre
	fmt.Fprintf(b, "\n/* program %s */\n", strings.TrimSuffix(pr, "_"))
	for _, o := range e.p.Objects {
		n := pr + o.Name
		switch o.Type {
		case "mutex":
			fmt.Fprintf(b, "static pthread_mutex_t %s;\n", n)
		case "cond":
			fmt.Fprintf(b, "static pthread_cond_t %s;\n", n)
		case "sem":
			fmt.Fprintf(b, "static sem_t %s;\n", n)
		case "rwlock":
			fmt.Fprintf(b, "static pthread_rwlock_t %s;\n", n)
		case "barrier":
			fmt.Fprintf(b, "static pthread_barrier_t %s;\n", n)
		case "spin":
			fmt.Fprintf(b, "static pthread_spinlock_t %s;\n", n)
		case "once":
			fmt.Fprintf(b, "static pthread_once_t %s = PTHREAD_ONCE_INIT;\n", n)
		case "var":
			fmt.Fprintf(b, "static long %s;\n", n)
		case "atomic":
			fmt.Fprintf(b, "static _Atomic long %s;\n", n)
		case "plain":
			fmt.Fprintf(b, "static long %s;\n", n)
		case "heap":
			fmt.Fprintf(b, "static long *%s;\n", n)
		}
	}
	spins := e.p.hasSpin()
	if spins {
		// Where an unrolled spin's thread blocks for ever (Unroll): in
		// both builds of the program, so that every line is the same.
		fmt.Fprintf(b, "static sem_t %snever; static void %sspunout(void);\n", pr, pr)
	}
	fmt.Fprintf(b, "static pthread_t %sth[%d];\n", pr, len(e.p.Threads))
	for k := 1; k < len(e.p.Threads); k++ {
		fmt.Fprintf(b, "static void *%st%d(void *arg);\n", pr, k)
	}
	for k := 1; k < len(e.p.Threads); k++ {
		fmt.Fprintf(b, "\nstatic void *%st%d(void *arg)\n{\n\t(void)arg;\n", pr, k)
		e.regs(1)
		e.ops(e.p.Threads[k].Ops, 1)
		b.WriteString("\treturn NULL;\n}\n")
	}
	fmt.Fprintf(b, "\nstatic int %smain(void)\n{\n", pr)
	if spins {
		fmt.Fprintf(b, "\tsem_init(&%snever, 0, 0);\n", pr)
	}
	for _, o := range e.p.Objects {
		n := pr + o.Name
		switch o.Type {
		case "mutex":
			if o.Arg == 0 {
				fmt.Fprintf(b, "\tpthread_mutex_init(&%s, NULL);\n", n)
				continue
			}
			kind := map[int64]string{1: "PTHREAD_MUTEX_RECURSIVE", 2: "PTHREAD_MUTEX_ERRORCHECK"}[o.Arg]
			fmt.Fprintf(b, "\t{\n\t\tpthread_mutexattr_t a;\n\t\tpthread_mutexattr_init(&a);\n\t\tpthread_mutexattr_settype(&a, %s);\n\t\tpthread_mutex_init(&%s, &a);\n\t\tpthread_mutexattr_destroy(&a);\n\t}\n", kind, n)
		case "cond":
			fmt.Fprintf(b, "\tpthread_cond_init(&%s, NULL);\n", n)
		case "sem":
			fmt.Fprintf(b, "\tsem_init(&%s, 0, %d);\n", n, o.Arg)
		case "rwlock":
			fmt.Fprintf(b, "\tpthread_rwlock_init(&%s, NULL);\n", n)
		case "barrier":
			fmt.Fprintf(b, "\tpthread_barrier_init(&%s, NULL, %d);\n", n, o.Arg)
		case "spin":
			fmt.Fprintf(b, "\tpthread_spin_init(&%s, PTHREAD_PROCESS_PRIVATE);\n", n)
		case "heap":
			// Before any thread starts: no access, no scheduling
			// point; the pointer is only read after.
			fmt.Fprintf(b, "\t%s = calloc(1, sizeof *%s);\n", n, n)
		}
	}
	e.regs(1)
	e.ops(e.p.Threads[0].Ops, 1)
	b.WriteString("\treturn 0;\n}\n")
	// The functions of the once bodies, declared before their use.
	text := b.String()
	at := strings.Index(text, "\nstatic void *"+pr+"t1(void *arg)\n")
	if at < 0 {
		at = strings.Index(text, "\nstatic int "+pr+"main(void)")
	}
	out.WriteString(text[:at])
	for i := range e.onces {
		fmt.Fprintf(out, "static void %sonce%d(void);\n", pr, i)
	}
	out.WriteString(text[at:])
	for _, src := range e.onces {
		out.WriteString(src)
	}
	if spins {
		fmt.Fprintf(out, "\nstatic void %sspunout(void)\n{\n\tsem_wait(&%snever); %s\n}\n", pr, pr, spunOutMark)
	}
}

// spunOutMark ends the line where an unrolled spin's thread blocks, and
// spinMark the line of a spin: checkSpin finds them in the source.
const (
	spunOutMark = "/* spun out */"
	spinMark    = "/* spin */"
)

// hasSpin reports whether the program has a spin.
func (p *Program) hasSpin() bool { return p.has("spin") }

// has reports whether the program has an operation of one of codes.
func (p *Program) has(codes ...string) bool {
	found := false
	for _, t := range p.Threads {
		walk(t.Ops, func(op *Op) error {
			for _, c := range codes {
				found = found || op.Code == c
			}
			return nil
		})
	}
	return found
}

func (e *cEmitter) regs(depth int) {
	ind := strings.Repeat("\t", depth)
	fmt.Fprintf(e.b, "%slong r0 = 0, r1 = 0, r2 = 0, r3 = 0;\n%s(void)r0, (void)r1, (void)r2, (void)r3;\n", ind, ind)
}

func (e *cEmitter) obj(name string) string { return e.pre + name }

// plain is the lvalue of a plain or heap object.
func (e *cEmitter) plain(name string) string {
	if o, _ := e.p.object(name); o.Type == "heap" {
		return "(*" + e.obj(name) + ")"
	}
	return e.obj(name)
}

// ops writes ops, one visible call per line, so that every operation has
// its own source line: C bugs are told apart by file and line.
func (e *cEmitter) ops(ops []Op, depth int) {
	ind := strings.Repeat("\t", depth)
	w := func(format string, args ...any) { fmt.Fprintf(e.b, ind+format+"\n", args...) }
	for i := range ops {
		op := &ops[i]
		r := regName(op.Reg)
		set := func(expr string) {
			if op.Reg < 0 {
				w("(void)(%s);", expr)
			} else {
				w("%s = %s;", r, expr)
			}
		}
		o := e.obj(op.Obj)
		c := cmp(op)
		switch op.Code {
		case "go":
			w("pthread_create(&%sth[%d], NULL, %st%d, NULL);", e.pre, op.Thread, e.pre, op.Thread)
		case "godetach":
			w("{")
			w("\tpthread_attr_t a;")
			w("\tpthread_attr_init(&a);")
			w("\tpthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);")
			w("\tpthread_create(&%sth[%d], &a, %st%d, NULL);", e.pre, op.Thread, e.pre, op.Thread)
			w("\tpthread_attr_destroy(&a);")
			w("}")
		case "join":
			w("pthread_join(%sth[%d], NULL);", e.pre, op.Thread)
		case "detach":
			w("pthread_detach(%sth[%d]);", e.pre, op.Thread)
		case "exit":
			w("pthread_exit(NULL);")
		case "progexit":
			w("exit(%d);", op.Val)
		case "yield":
			w("sched_yield();")
		case "syield":
			w("stdbg_yield();")
		case "sleep":
			w("usleep(%d);", op.Val*1000)
		case "choose":
			set(fmt.Sprintf("stdbg_choose(%d)", op.Val))
		case "read":
			w("stdbg_read(&%s, sizeof %s);", o, o)
			set(o)
		case "write":
			w("stdbg_write(&%s, sizeof %s);", o, o)
			w("%s = %d;", o, op.Val)
		case "incr":
			w("{")
			w("\tstdbg_read(&%s, sizeof %s);", o, o)
			w("\tlong v = %s;", o)
			w("\tstdbg_write(&%s, sizeof %s);", o, o)
			w("\t%s = v + 1;", o)
			w("}")
		case "pload":
			set(e.plain(op.Obj))
		case "pstore":
			w("%s = %d;", e.plain(op.Obj), op.Val)
		case "pincr":
			x := e.plain(op.Obj)
			w("%s = %s + 1;", x, x)
		// (The annotations of atomics: in a Memory build the atomic
		// operation itself is a point, and the annotation a comment.)
		case "aload":
			w("%s", e.annotate("stdbg_atomic_read", o))
			set(fmt.Sprintf("atomic_load(&%s)", o))
		case "astore":
			w("%s", e.annotate("stdbg_atomic_write", o))
			w("atomic_store(&%s, %d);", o, op.Val)
		case "aadd":
			w("%s", e.annotate("stdbg_atomic_write", o))
			set(fmt.Sprintf("atomic_fetch_add(&%s, %d) + %d", o, op.Val, op.Val))
		case "acas":
			w("{")
			w("\tlong expected = %d;", op.Val)
			w("\t%s", e.annotate("stdbg_atomic_write", o))
			if op.Reg >= 0 {
				w("\t%s = atomic_compare_exchange_strong(&%s, &expected, %d);", r, o, op.Val2)
			} else {
				w("\t(void)atomic_compare_exchange_strong(&%s, &expected, %d);", o, op.Val2)
			}
			w("}")
		case "spin":
			// On one line, unrolled or not, so that the lines of the
			// two builds are the same.
			look := fmt.Sprintf("(%satomic_load(&%s) != %d)", e.atomicRead(o), o, op.Val)
			body := ""
			for _, b := range op.Body {
				body += map[string]string{"yield": " sched_yield();", "syield": " stdbg_yield();"}[b.Code]
			}
			if n := e.p.Unroll; n > 0 {
				w("{ int spun = 1; for (int k = 0; k < %d; k++) { if (!%s) { spun = 0; break; }%s } if (spun) %sspunout(); } %s",
					n, look, body, e.pre, spinMark)
			} else {
				w("while %s {%s } %s", look, body, spinMark)
			}
		case "retry":
			look := fmt.Sprintf("(%satomic_load(&%s) == %d)", e.atomicRead(o), o, op.Val)
			w("{ int seen = 0; for (int k = 0; k < %d; k++) { if (%s) { seen = 1; break; } sched_yield(); } stdbg_assert(seen, \"A%d\"); }",
				op.Val2, look, op.ID)
		case "assert":
			w("stdbg_assert(%s %s %d, \"A%d\");", r, c, op.Val, op.ID)
		case "crashif":
			w("if (%s %s %d)", r, c, op.Val)
			w("\t*(volatile int *)0 = %d; /* P%d */", op.ID, op.ID)
		case "if":
			w("if (%s %s %d) {", r, c, op.Val)
			e.ops(op.Body, depth+1)
			w("}")
		case "repeat":
			w("for (int i%d = 0; i%d < %d; i%d++) {", depth, depth, op.Val, depth)
			e.ops(op.Body, depth+1)
			w("}")
		case "lock":
			w("pthread_mutex_lock(&%s);", o)
		case "unlock":
			w("pthread_mutex_unlock(&%s);", o)
		case "trylock":
			set(fmt.Sprintf("pthread_mutex_trylock(&%s) == 0", o))
		case "timedlock":
			set(fmt.Sprintf("pthread_mutex_timedlock(&%s, oracle_deadline()) == 0", o))
		case "rlock":
			w("pthread_rwlock_rdlock(&%s);", o)
		case "wlock":
			w("pthread_rwlock_wrlock(&%s);", o)
		case "rwunlock":
			w("pthread_rwlock_unlock(&%s);", o)
		case "tryrlock":
			set(fmt.Sprintf("pthread_rwlock_tryrdlock(&%s) == 0", o))
		case "trywlock":
			set(fmt.Sprintf("pthread_rwlock_trywrlock(&%s) == 0", o))
		case "wait":
			w("pthread_cond_wait(&%s, &%s);", o, e.condMutex(op.Obj))
		case "timedwait":
			set(fmt.Sprintf("pthread_cond_timedwait(&%s, &%s, oracle_deadline()) == 0", o, e.condMutex(op.Obj)))
		case "signal":
			w("pthread_cond_signal(&%s);", o)
		case "broadcast":
			w("pthread_cond_broadcast(&%s);", o)
		case "once":
			n := len(e.onces)
			e.onces = append(e.onces, "")
			w("pthread_once(&%s, %sonce%d);", o, e.pre, n)
			body := &cEmitter{p: e.p, pre: e.pre, b: &strings.Builder{}}
			fmt.Fprintf(body.b, "\nstatic void %sonce%d(void)\n{\n", e.pre, n)
			body.regs(1)
			body.ops(op.Body, 1)
			body.b.WriteString("}\n")
			e.onces[n] = body.b.String()
			e.onces = append(e.onces, body.onces...)
		case "semwait":
			w("sem_wait(&%s);", o)
		case "semtrywait":
			set(fmt.Sprintf("sem_trywait(&%s) == 0", o))
		case "semtimedwait":
			set(fmt.Sprintf("sem_timedwait(&%s, oracle_deadline()) == 0", o))
		case "sempost":
			w("sem_post(&%s);", o)
		case "semvalue":
			w("{")
			w("\tint v = 0;")
			w("\tsem_getvalue(&%s, &v);", o)
			if op.Reg >= 0 {
				w("\t%s = v;", r)
			}
			w("}")
		case "barrier":
			set(fmt.Sprintf("pthread_barrier_wait(&%s) == PTHREAD_BARRIER_SERIAL_THREAD", o))
		case "spinlock":
			w("pthread_spin_lock(&%s);", o)
		case "spinunlock":
			w("pthread_spin_unlock(&%s);", o)
		case "spintrylock":
			set(fmt.Sprintf("pthread_spin_trylock(&%s) == 0", o))
		}
	}
}

// annotate is the annotation fn of an atomic operation on o: in a Memory
// build, where the operation is instrumented (a scheduling point of its
// own), a comment that keeps the line.
func (e *cEmitter) annotate(fn, o string) string {
	if e.p.Memory {
		return fmt.Sprintf("/* %s(&%s) */", fn, o)
	}
	return fmt.Sprintf("%s(&%s, sizeof %s);", fn, o, o)
}

// atomicRead is what a loop's look at atomic o starts with: in a Memory
// build nothing (the load is instrumented: a scheduling point of its own),
// else its annotation.
func (e *cEmitter) atomicRead(o string) string {
	if e.p.Memory {
		return ""
	}
	return fmt.Sprintf("stdbg_atomic_read(&%s, sizeof %s), ", o, o)
}

func (e *cEmitter) condMutex(cond string) string {
	o, _ := e.p.object(cond)
	return e.obj(o.Ref)
}
