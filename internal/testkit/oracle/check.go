package oracle

import (
	"fmt"
	"strings"
)

// objectTypes are the object types of each runtime.
var objectTypes = map[Lang]map[string]bool{
	Go: {"mutex": true, "rwmutex": true, "cond": true, "waitgroup": true, "once": true, "chan": true,
		"var": true, "atomic": true, "timer": true, "ctx": true},
	C: {"mutex": true, "cond": true, "sem": true, "rwlock": true, "barrier": true, "spin": true,
		"once": true, "var": true, "atomic": true, "plain": true, "heap": true},
}

// objectOf is the type of object each operation's Obj names, by code ("" for
// codes whose object may be of several types).
var objectOf = map[string]string{
	"read": "var", "write": "var", "incr": "var",
	"pload": "plain", "pstore": "plain", "pincr": "plain", // or heap
	"aload": "atomic", "astore": "atomic", "aadd": "atomic", "acas": "atomic", "spin": "atomic", "retry": "atomic",
	"lock": "mutex", "unlock": "mutex", "trylock": "mutex", "timedlock": "mutex",
	"wait": "cond", "timedwait": "cond", "signal": "cond", "broadcast": "cond",
	"once":  "once",
	"wgadd": "waitgroup", "wgdone": "waitgroup", "wgwait": "waitgroup",
	"send": "chan", "recv": "chan", "recvok": "chan", "close": "chan", "len": "chan",
	"timer": "timer", "afterfunc": "timer", "ticker": "timer", "tick": "timer", "stop": "timer", "reset": "timer",
	"ctx": "ctx", "cancel": "ctx", "ctxerr": "ctx", "ctxdone": "ctx",
	"semwait": "sem", "semtrywait": "sem", "semtimedwait": "sem", "sempost": "sem", "semvalue": "sem",
	"barrier": "barrier", "spinlock": "spin", "spintrylock": "spin", "spinunlock": "spin",
}

// rwType is the reader/writer lock type of each runtime.
func rwType(l Lang) string {
	if l == C {
		return "rwlock"
	}
	return "rwmutex"
}

// Check reports whether the program is well formed: known operations of
// its runtime on objects of the right types, registers in range, and every
// thread but the main one started exactly once, by an operation of another
// thread.
func (p *Program) Check() error {
	if p.Lang != Go && p.Lang != C {
		return fmt.Errorf("unknown lang %q", p.Lang)
	}
	if len(p.Threads) == 0 {
		return fmt.Errorf("no threads")
	}
	if p.Memory && p.Lang != C {
		return fmt.Errorf("memory: only C programs have a memory build")
	}
	objs := map[string]Object{}
	for _, o := range p.Objects {
		if !objectTypes[p.Lang][o.Type] {
			return fmt.Errorf("object %s: no type %q in %s", o.Name, o.Type, p.Lang)
		}
		if (o.Type == "plain" || o.Type == "heap") && !p.Memory {
			// Its accesses would be invisible: shared memory stdbg does
			// not see, outside what it promises.
			return fmt.Errorf("object %s: a %s variable needs the memory build (memory)", o.Name, o.Type)
		}
		if _, dup := objs[o.Name]; dup || !validName(o.Name) {
			return fmt.Errorf("object %s: duplicate or invalid name", o.Name)
		}
		if o.Type == "cond" {
			r, ok := objs[o.Ref]
			if !ok || (r.Type != "mutex" && r.Type != rwType(p.Lang)) {
				return fmt.Errorf("condition %s: its mutex %q is not a mutex declared before it", o.Name, o.Ref)
			}
		} else if o.Type == "ctx" && o.Ref != "" {
			if r, ok := objs[o.Ref]; !ok || r.Type != "ctx" {
				return fmt.Errorf("context %s: its parent %q is not a context declared before it", o.Name, o.Ref)
			}
		} else if o.Ref != "" {
			return fmt.Errorf("object %s: only conditions and contexts name another object", o.Name)
		}
		objs[o.Name] = o
	}
	started := make([]int, len(p.Threads))
	for i, t := range p.Threads {
		err := walk(t.Ops, func(op *Op) error {
			sig, ok := opCodes[op.Code]
			if !ok || !strings.Contains(sig.langs, string(p.Lang[0])) {
				return fmt.Errorf("no operation %q in %s", op.Code, p.Lang)
			}
			if strings.Contains(sig.fields, "o") {
				o, ok := objs[op.Obj]
				want := objectOf[op.Code]
				if op.Code == "rlock" || op.Code == "wlock" || op.Code == "runlock" || op.Code == "wunlock" ||
					op.Code == "rwunlock" || op.Code == "tryrlock" || op.Code == "trywlock" {
					want = rwType(p.Lang)
				}
				if want == "plain" {
					if !ok || o.Type != "plain" && o.Type != "heap" {
						return fmt.Errorf("%s: %q is not a plain or heap variable", op.Code, op.Obj)
					}
				} else if !ok || o.Type != want {
					return fmt.Errorf("%s: %q is not a %s", op.Code, op.Obj, want)
				}
			}
			if strings.Contains(sig.fields, "t") {
				if op.Thread <= 0 || op.Thread >= len(p.Threads) {
					return fmt.Errorf("%s: no thread %d", op.Code, op.Thread)
				}
				if op.Code == "go" || op.Code == "godetach" || op.Code == "afterfunc" {
					if op.Thread == i {
						return fmt.Errorf("thread %d starts itself", i)
					}
					started[op.Thread]++
				}
			}
			if strings.Contains(sig.fields, "r") && (op.Reg < -1 || op.Reg >= NumRegs) {
				return fmt.Errorf("%s: no register %d", op.Code, op.Reg)
			}
			if (op.Code == "assert" || op.Code == "crashif" || op.Code == "if") && op.Reg < 0 {
				return fmt.Errorf("%s needs a register", op.Code)
			}
			if op.Code == "choose" && (op.Val < 1 || op.Val > 8) {
				return fmt.Errorf("choose %d: want 1..8", op.Val)
			}
			if op.Code == "repeat" && (op.Val < 0 || op.Val > 4) {
				return fmt.Errorf("repeat %d: want 0..4", op.Val)
			}
			if op.Code == "spin" && p.Lang == C && !p.Memory {
				// Its turns would not wait: only an instrumented
				// program's are vouched for (docs/spin.md).
				return fmt.Errorf("spin: a C spin needs the memory build (memory)")
			}
			if op.Code == "spin" {
				for _, b := range op.Body {
					if b.Code != "yield" && b.Code != "syield" {
						return fmt.Errorf("spin: its body may only yield, not %s", b.Code)
					}
				}
			}
			if op.Code == "retry" && (op.Val2 < 1 || op.Val2 > 4) {
				return fmt.Errorf("retry %d times: want 1..4", op.Val2)
			}
			if op.Code == "select" {
				if len(op.Cases) == 0 && !op.Default {
					return fmt.Errorf("select without cases")
				}
				for _, c := range op.Cases {
					want := map[string]string{"recv": "chan", "send": "chan", "timer": "timer", "done": "ctx", "after": ""}[c.Kind]
					if want != "" && objs[c.Obj].Type != want {
						return fmt.Errorf("select case %s: %q is not a %s", c.Kind, c.Obj, want)
					}
				}
			}
			if (op.Code == "timer" || op.Code == "afterfunc" || op.Code == "ticker" || op.Code == "sleep") && (op.Val < 0 || op.Val > 1000) {
				return fmt.Errorf("%s %d: want 0..1000 ms", op.Code, op.Val)
			}
			if op.Code == "ticker" && op.Val <= 0 {
				return fmt.Errorf("ticker %d: want a positive period", op.Val)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("thread %d: %w", i, err)
		}
	}
	for i := 1; i < len(p.Threads); i++ {
		if started[i] != 1 {
			return fmt.Errorf("thread %d is started %d times, want once", i, started[i])
		}
	}
	return nil
}

func validName(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z') {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// walk calls f on every operation of ops, bodies included, in order.
func walk(ops []Op, f func(*Op) error) error {
	for i := range ops {
		if err := f(&ops[i]); err != nil {
			return err
		}
		if err := walk(ops[i].Body, f); err != nil {
			return err
		}
	}
	return nil
}

// Size is the number of operations of the program, bodies included.
func (p *Program) Size() int {
	n := 0
	for _, t := range p.Threads {
		walk(t.Ops, func(*Op) error { n++; return nil })
	}
	return n
}

// object returns the object named name.
func (p *Program) object(name string) (Object, bool) {
	for _, o := range p.Objects {
		if o.Name == name {
			return o, true
		}
	}
	return Object{}, false
}

// Clone returns a deep copy of p.
func (p *Program) Clone() *Program {
	q := &Program{Lang: p.Lang, Races: p.Races, Memory: p.Memory, Unroll: p.Unroll, Objects: append([]Object(nil), p.Objects...)}
	q.Threads = make([]Thread, len(p.Threads))
	for i, t := range p.Threads {
		q.Threads[i].Ops = cloneOps(t.Ops)
	}
	return q
}

func cloneOps(ops []Op) []Op {
	if ops == nil {
		return nil
	}
	out := make([]Op, len(ops))
	for i, op := range ops {
		out[i] = op
		out[i].Cases = append([]Case(nil), op.Cases...)
		out[i].Body = cloneOps(op.Body)
	}
	return out
}
