package oracle

import (
	"fmt"
	"strings"
)

// GoTest returns a standalone Go test file (package name pkg) whose test
// fn checks the Go program p with sthread.Check, every bug reported: the
// program written out as the interpreter runs it, for a developer to run
// with go test or stdbg find. comment is put above the test.
func GoTest(p *Program, pkg, fn, comment string) (string, error) {
	if p.Lang != Go {
		return "", fmt.Errorf("not a Go program")
	}
	if err := p.Check(); err != nil {
		return "", err
	}
	e := &goEmitter{p: p}
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\nimport (\n\t\"context\"\n\t\"testing\"\n\t\"time\"\n\n%s)\n\n", pkg, goImports)
	for _, l := range strings.Split(strings.TrimRight(comment, "\n"), "\n") {
		b.WriteString(strings.TrimRight("// "+l, " ") + "\n")
	}
	fmt.Fprintf(&b, "func %s(t *testing.T) {\n\tsthread.Check(t, func() {\n", fn)
	b.WriteString("\t\tb2i := func(b bool) int64 {\n\t\t\tif b {\n\t\t\t\treturn 1\n\t\t\t}\n\t\t\treturn 0\n\t\t}\n")
	b.WriteString("\t\t_, _, _ = b2i, context.Background, time.Millisecond\n")
	b.WriteString("\t\t_, _, _, _ = lang.SelectOf, stime.Now, scontext.Cause, atomic.LoadInt64\n")
	e.objects(&b)
	if len(p.Threads) > 1 {
		var names []string
		for k := 1; k < len(p.Threads); k++ {
			names = append(names, fmt.Sprintf("thread%d", k))
		}
		fmt.Fprintf(&b, "\t\tvar %s func()\n", strings.Join(names, ", "))
	}
	for k := 1; k < len(p.Threads); k++ {
		fmt.Fprintf(&b, "\t\tthread%d = func() {\n", k)
		e.thread(&b, k, 3)
		b.WriteString("\t\t}\n")
	}
	e.thread(&b, 0, 2)
	b.WriteString("\t}, sthread.All(), sthread.NoSave())\n}\n")
	return b.String(), nil
}

// goImports are the imports of stdbg's packages in the test file: sthread,
// and its packages that plain Go is rewritten onto, which the interpreter
// runs the program with.
const goImports = "\t\"github.com/stdbg/stdbg/sthread\"\n" +
	"\tscontext \"github.com/stdbg/stdbg/sthread/context\"\n" +
	"\t\"github.com/stdbg/stdbg/sthread/lang\"\n" +
	"\t\"github.com/stdbg/stdbg/sthread/sync/atomic\"\n" +
	"\tstime \"github.com/stdbg/stdbg/sthread/time\"\n"

type goEmitter struct{ p *Program }

func (e *goEmitter) objects(b *strings.Builder) {
	for _, o := range e.p.Objects {
		n := o.Name
		switch o.Type {
		case "var":
			fmt.Fprintf(b, "\t\tvar %s int64\n", n)
		case "atomic":
			fmt.Fprintf(b, "\t\tvar %s atomic.Int64\n", n)
		case "mutex":
			fmt.Fprintf(b, "\t\tvar %s sthread.Mutex\n", n)
		case "rwmutex":
			fmt.Fprintf(b, "\t\tvar %s sthread.RWMutex\n", n)
		case "cond":
			ref, _ := e.p.object(o.Ref)
			if ref.Type == "rwmutex" {
				fmt.Fprintf(b, "\t\t%s := sthread.NewCond(%s.RLocker())\n", n, o.Ref)
			} else {
				fmt.Fprintf(b, "\t\t%s := sthread.NewCond(&%s)\n", n, o.Ref)
			}
		case "waitgroup":
			fmt.Fprintf(b, "\t\tvar %s sthread.WaitGroup\n", n)
		case "once":
			fmt.Fprintf(b, "\t\tvar %s sthread.Once\n", n)
		case "chan":
			fmt.Fprintf(b, "\t\t%s := make(chan int, %d)\n", n, o.Arg)
		case "timer":
			fmt.Fprintf(b, "\t\tvar %s *stime.Timer\n\t\tvar %sTicker *stime.Ticker\n\t\t_, _ = %s, %sTicker\n", n, n, n, n)
			continue
		case "ctx":
			fmt.Fprintf(b, "\t\tvar %s context.Context\n\t\tvar %sCancel context.CancelFunc\n\t\t_, _ = %s, %sCancel\n", n, n, n, n)
			continue
		}
		fmt.Fprintf(b, "\t\t_ = &%s\n", n)
	}
}

func (e *goEmitter) thread(b *strings.Builder, k, depth int) {
	ind := strings.Repeat("\t", depth)
	fmt.Fprintf(b, "%svar r0, r1, r2, r3 int64\n%s_, _, _, _ = r0, r1, r2, r3\n", ind, ind)
	e.ops(b, e.p.Threads[k].Ops, depth)
}

func cmp(op *Op) string {
	if op.Neg {
		return "!="
	}
	return "=="
}

func (e *goEmitter) ops(b *strings.Builder, ops []Op, depth int) {
	ind := strings.Repeat("\t", depth)
	w := func(format string, args ...any) { fmt.Fprintf(b, ind+format+"\n", args...) }
	for i := range ops {
		op := &ops[i]
		r := regName(op.Reg)
		if op.Reg < 0 {
			r = "_"
		}
		set := func(expr string) {
			if op.Reg < 0 {
				w("_ = %s", expr)
			} else {
				w("%s = %s", r, expr)
			}
		}
		o := op.Obj
		switch op.Code {
		case "go":
			w("sthread.Go(thread%d)", op.Thread)
		case "yield":
			w("sthread.Yield()")
		case "sleep":
			w("stime.Sleep(%d * time.Millisecond)", op.Val)
		case "choose":
			set(fmt.Sprintf("int64(sthread.Choose(%d))", op.Val))
		case "read":
			w("sthread.Read(&%s)", o)
			set(o)
		case "write":
			w("sthread.Write(&%s)", o)
			w("%s = %d", o, op.Val)
		case "incr":
			w("sthread.Read(&%s)", o)
			w("{\n%s\tv := %s\n%s\tsthread.Write(&%s)\n%s\t%s = v + 1\n%s}", ind, o, ind, o, ind, o, ind)
		case "aload":
			set(o + ".Load()")
		case "astore":
			w("%s.Store(%d)", o, op.Val)
		case "aadd":
			set(fmt.Sprintf("%s.Add(%d)", o, op.Val))
		case "acas":
			set(fmt.Sprintf("b2i(%s.CompareAndSwap(%d, %d))", o, op.Val, op.Val2))
		case "spin":
			// As goinstr marks a loop whose turns can change only what
			// the checker sees (docs/spin.md).
			id := 0x5e1 + i + 64*depth
			w("lang.SpinEnter(%#x)", id)
			w("for %s.Load() != %d {", o, op.Val)
			w("	lang.SpinHead(%#x)", id)
			e.ops(b, op.Body, depth+1)
			w("}")
		case "retry":
			w("{")
			w("\tseen := false")
			w("\tfor k := 0; k < %d && !seen; k++ {", op.Val2)
			w("\t\tif seen = %s.Load() == %d; !seen {", o, op.Val)
			w("\t\t\tsthread.Yield()")
			w("\t\t}")
			w("\t}")
			w("\tsthread.Assert(seen, %q)", fmt.Sprintf("A%d", op.ID))
			w("}")
		case "assert":
			w("sthread.Assert(%s %s %d, %q)", r, cmp(op), op.Val, fmt.Sprintf("A%d", op.ID))
		case "crashif":
			w("if %s %s %d {\n%s\tpanic(%q)\n%s}", r, cmp(op), op.Val, ind, fmt.Sprintf("P%d", op.ID), ind)
		case "if":
			w("if %s %s %d {", r, cmp(op), op.Val)
			e.ops(b, op.Body, depth+1)
			w("}")
		case "repeat":
			w("for range %d {", op.Val)
			e.ops(b, op.Body, depth+1)
			w("}")
		case "lock", "rlock", "runlock", "unlock":
			w("%s.%s()", o, map[string]string{"lock": "Lock", "unlock": "Unlock", "rlock": "RLock", "runlock": "RUnlock"}[op.Code])
		case "wlock":
			w("%s.Lock()", o)
		case "wunlock":
			w("%s.Unlock()", o)
		case "trylock", "trywlock":
			set(fmt.Sprintf("b2i(%s.TryLock())", o))
		case "tryrlock":
			set(fmt.Sprintf("b2i(%s.TryRLock())", o))
		case "wait":
			w("%s.Wait()", o)
		case "signal":
			w("%s.Signal()", o)
		case "broadcast":
			w("%s.Broadcast()", o)
		case "once":
			w("%s.Do(func() {", o)
			e.ops(b, op.Body, depth+1)
			w("})")
		case "wgadd":
			w("%s.Add(%d)", o, op.Val)
		case "wgdone":
			w("%s.Done()", o)
		case "wgwait":
			w("%s.Wait()", o)
		case "send":
			w("lang.ChanSend(%s, %d)", o, op.Val)
		case "recv":
			set(fmt.Sprintf("int64(lang.ChanRecv(%s))", o))
		case "recvok":
			w("{\n%s\t_, ok := lang.ChanRecv2(%s)", ind, o)
			if op.Reg >= 0 {
				w("\t%s = b2i(ok)", r)
			} else {
				w("\t_ = ok")
			}
			w("}")
		case "close":
			w("lang.ChanClose(%s)", o)
		case "len":
			set(fmt.Sprintf("int64(lang.ChanLen(%s))", o))
		case "select":
			e.sel(b, op, depth)
		case "timer":
			w("%s, %sTicker = stime.NewTimer(%d*time.Millisecond), nil", o, o, op.Val)
		case "afterfunc":
			w("%s, %sTicker = stime.AfterFunc(%d*time.Millisecond, thread%d), nil", o, o, op.Val, op.Thread)
		case "ticker":
			w("%s, %sTicker = nil, stime.NewTicker(%d*time.Millisecond)", o, o, op.Val)
		case "tick":
			w("if %s != nil {\n%s\tlang.ChanRecv(%s.C)\n%s} else if %sTicker != nil {\n%s\tlang.ChanRecv(%sTicker.C)\n%s}", o, ind, o, ind, o, ind, o, ind)
		case "stop":
			w("if %s != nil {", o)
			w("\t%s = b2i(%s.Stop())", orBlank(r), o)
			w("} else if %sTicker != nil {\n%s\t%sTicker.Stop()", o, ind, o)
			if op.Reg >= 0 {
				w("\t%s = 0", r)
			}
			w("}")
		case "reset":
			w("if %s != nil {", o)
			w("\t%s = b2i(%s.Reset(%d * time.Millisecond))", orBlank(r), o, op.Val)
			if op.Val > 0 {
				w("} else if %sTicker != nil {\n%s\t%sTicker.Reset(%d * time.Millisecond)", o, ind, o, op.Val)
				if op.Reg >= 0 {
					w("\t%s = 0", r)
				}
			}
			w("}")
		case "ctx":
			parent := "context.Background()"
			if obj, _ := e.p.object(o); obj.Ref != "" {
				w("parent := context.Background()")
				w("if %s != nil {\n%s\tparent = %s\n%s}", obj.Ref, ind, obj.Ref, ind)
				parent = "parent"
			}
			if op.Val > 0 {
				w("%s, %sCancel = scontext.WithTimeout(%s, %d*time.Millisecond)", o, o, parent, op.Val)
			} else {
				w("%s, %sCancel = scontext.WithCancel(%s)", o, o, parent)
			}
		case "cancel":
			w("if %sCancel != nil {\n%s\t%sCancel()\n%s}", o, ind, o, ind)
		case "ctxerr":
			w("if %s != nil {\n%s\t%s = b2i(%s.Err() != nil)\n%s}", o, ind, orBlank(r), o, ind)
		case "ctxdone":
			w("if %s != nil {\n%s\tlang.ChanRecv(%s.Done())\n%s}", o, ind, o, ind)
		}
	}
}

func orBlank(r string) string {
	if r == "" {
		return "_"
	}
	return r
}

// sel writes a select as the interpreter runs it.
func (e *goEmitter) sel(b *strings.Builder, op *Op, depth int) {
	ind := strings.Repeat("\t", depth)
	w := func(format string, args ...any) { fmt.Fprintf(b, ind+format+"\n", args...) }
	w("{")
	var cases []string
	for i, c := range op.Cases {
		switch c.Kind {
		case "recv":
			w("\tc%d := lang.RecvCaseOf(%s)", i, c.Obj)
		case "send":
			w("\tc%d := lang.SendCaseOf(%s, %d)", i, c.Obj, c.Val)
		case "timer":
			w("\tvar tc%d <-chan time.Time", i)
			w("\tif %s != nil {\n%s\t\ttc%d = %s.C\n%s\t} else if %sTicker != nil {\n%s\t\ttc%d = %sTicker.C\n%s\t}", c.Obj, ind, i, c.Obj, ind, c.Obj, ind, i, c.Obj, ind)
			w("\tc%d := lang.RecvCaseOf(tc%d)", i, i)
		case "after":
			w("\tc%d := lang.RecvCaseOf(stime.After(%d * time.Millisecond))", i, c.Val)
		case "done":
			w("\tvar dc%d <-chan struct{}", i)
			w("\tif %s != nil {\n%s\t\tdc%d = %s.Done()\n%s\t}", c.Obj, ind, i, c.Obj, ind)
			w("\tc%d := lang.RecvCaseOf(dc%d)", i, i)
		}
		cases = append(cases, fmt.Sprintf("c%d", i))
	}
	w("\ti := lang.SelectOf(%v%s)", op.Default, prefixAll(", ", cases))
	for i, c := range op.Cases {
		if c.Kind == "recv" && c.Reg >= 0 {
			w("\tif i == %d {\n%s\t\t%s = int64(c%d.Val())\n%s\t}", i, ind, regName(c.Reg), i, ind)
		}
	}
	if op.Reg >= 0 {
		w("\t%s = int64(i)", regName(op.Reg))
	} else {
		w("\t_ = i")
	}
	w("}")
}

func prefixAll(sep string, xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return sep + strings.Join(xs, sep)
}
