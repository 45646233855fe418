package rt

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

type account struct {
	name    string
	balance int
	log     []string
	next    *account
}

type shape interface{ area() int }

type square struct{ side int }

func (s *square) area() int { return s.side * s.side }

// counter returns a closure that counts its calls: state no one can see.
func counter() func() int {
	n := 0
	return func() int { n++; return n }
}

// pkgLiteral is a function literal of a package-level variable's
// initialiser: it can capture package-level variables only.
var pkgLiteral = func() int { return 1 }

// Each case makes a variable, takes the snapshot, changes the state as an
// execution would, puts it back and checks that it is as it was: the same
// objects (their addresses) with their old contents.
func TestRestore(t *testing.T) {
	for _, tt := range []struct {
		name string
		// setup returns the variable's address, a change of the state
		// and a check of it after restore.
		setup func() (addr any, change func(), check func() string)
	}{
		{"counter", func() (any, func(), func() string) {
			n := 3
			return &n, func() { n += 5 }, func() string { return want(n == 3, "n = %d", n) }
		}},
		{"map filled in place", func() (any, func(), func() string) {
			m := map[string]int{"a": 1}
			orig := m
			return &m, func() { m["a"] = 2; m["b"] = 3; delete(m, "a") },
				func() string {
					return want(len(m) == 1 && m["a"] == 1 && sameMap(m, orig), "m = %v", m)
				}
		}},
		{"map replaced", func() (any, func(), func() string) {
			m := map[int]*account{1: {name: "x", balance: 1}}
			a := m[1]
			return &m, func() { a.balance = 9; m = map[int]*account{} },
				func() string {
					return want(m[1] == a && a.balance == 1, "m = %v, balance %d", m, a.balance)
				}
		}},
		{"slice appended and written", func() (any, func(), func() string) {
			s := make([]int, 2, 4)
			s[0] = 7
			return &s, func() { s[0] = 1; s = append(s, 5, 6); s[1] = 4 },
				func() string {
					return want(len(s) == 2 && cap(s) == 4 && s[0] == 7 && s[1] == 0 && s[:4][2] == 0, "s = %v (cap %d)", s, cap(s))
				}
		}},
		{"pointers, a cycle and a slice of strings", func() (any, func(), func() string) {
			a := &account{name: "a", balance: 10, log: []string{"open"}}
			b := &account{name: "b", balance: 20, next: a}
			a.next = b
			p := a
			return &p, func() {
					a.balance, b.balance = 0, 0
					a.log = append(a.log, "drain")
					a.log[0] = "closed"
					b.next = &account{name: "new"}
					p = b
				}, func() string {
					return want(p == a && a.balance == 10 && b.balance == 20 && b.next == a && a.next == b &&
						len(a.log) == 1 && a.log[0] == "open", "%+v %+v", *a, *b)
				}
		}},
		{"interface holding a pointer", func() (any, func(), func() string) {
			sq := &square{side: 2}
			var s shape = sq
			return &s, func() { sq.side = 5; s = &square{side: 1} },
				func() string { return want(s == shape(sq) && sq.side == 2, "area %d", s.area()) }
		}},
		{"error, time and atomics", func() (any, func(), func() string) {
			type state struct {
				err  error
				at   time.Time
				hits atomic.Int64
				last atomic.Pointer[account]
			}
			acc := &account{balance: 1}
			st := &state{at: time.Unix(100, 0)}
			st.last.Store(acc)
			return &st, func() {
					st.err = errors.New("boom")
					st.at = time.Now()
					st.hits.Add(3)
					st.last.Load().balance = 2
					st.last.Store(&account{})
				}, func() string {
					return want(st.err == nil && st.at.Equal(time.Unix(100, 0)) && st.hits.Load() == 0 &&
						st.last.Load() == acc && acc.balance == 1, "%v %v %d %p", st.err, st.at, st.hits.Load(), st.last.Load())
				}
		}},
		{"math/rand's generator", func() (any, func(), func() string) {
			r := rand.New(rand.NewSource(7))
			first := rand.New(rand.NewSource(7)).Int63()
			return &r, func() { r.Int63(); r.Int63() }, func() string { n := r.Int63(); return want(n == first, "drew %d, want %d", n, first) }
		}},
		{"sync.Map", func() (any, func(), func() string) {
			m := new(sync.Map)
			m.Store("a", 1)
			return &m, func() { m.Store("a", 2); m.Store("b", 3) },
				func() string {
					a, _ := m.Load("a")
					_, b := m.Load("b")
					return want(a == 1 && !b, "a = %v, b there: %v", a, b)
				}
		}},
		{"empty sync.Pool", func() (any, func(), func() string) {
			p := &sync.Pool{}
			return &p, func() { p.Put(&account{name: "left"}) },
				func() string { v := p.Get(); return want(v == nil, "the pool gave %v", v) }
		}},
		{"package-level literal", func() (any, func(), func() string) {
			f := pkgLiteral
			return &f, func() { f = counter() }, func() string { return want(f() == 1, "another function") }
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			addr, change, check := tt.setup()
			s := takeSnapshot([]Var{{Name: "v", Pos: "x.go:1", Addr: addr}})
			if s.problem != "" {
				t.Fatalf("snapshot: %s", s.problem)
			}
			if msg := s.restore(); msg != "" {
				t.Fatalf("restore before any change: %s", msg)
			}
			for i := range 2 {
				change()
				if msg := s.restore(); msg != "" {
					t.Fatalf("restore %d: %s", i+1, msg)
				}
				if msg := check(); msg != "" {
					t.Fatalf("after restore %d: %s", i+1, msg)
				}
			}
		})
	}
}

// What cannot be put back is said, naming the variable: at once for what
// cannot be seen, at the restore that finds it changed for another
// package's value.
func TestRestoreRefused(t *testing.T) {
	for _, tt := range []struct {
		name   string
		setup  func() (addr any, change func())
		atOnce bool
		want   string
	}{
		{"closure", func() (any, func()) { f := counter(); return &f, func() { f() } }, true,
			"next (c.go:3): holds a closure (github.com/stdbg/stdbg/sthread/internal/rt."},
		{"method value", func() (any, func()) { sq := &square{1}; f := sq.area; return &f, func() {} }, true,
			"holds a closure (github.com/stdbg/stdbg/sthread/internal/rt.(*square).area-fm)"},
		{"unsafe.Pointer", func() (any, func()) { n := 1; p := unsafe.Pointer(&n); return &p, func() {} }, true,
			"holds an unsafe.Pointer"},
		{"pool that held values", func() (any, func()) {
			p := &sync.Pool{}
			for range 20 { // the race detector drops some
				p.Put(new(int))
			}
			return &p, func() {}
		}, true,
			"sync.Pool that held values"},
		{"another package's value changed", func() (any, func()) {
			var sb strings.Builder
			w := bufio.NewWriter(&sb)
			return &w, func() { w.WriteString("x") }
		}, false, "next (c.go:3): a value of type bufio.Writer reached from it changed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			addr, change := tt.setup()
			s := takeSnapshot([]Var{{Name: "next", Pos: "c.go:3", Addr: addr}})
			msg := s.problem
			if !tt.atOnce {
				if msg != "" {
					t.Fatalf("snapshot: %s", msg)
				}
				if m := s.restore(); m != "" {
					t.Fatalf("restore before any change: %s", m)
				}
				change()
				msg = s.restore()
			}
			if !strings.Contains(msg, tt.want) {
				t.Errorf("got %q, want %q in it", msg, tt.want)
			}
		})
	}
}

// Another package's value that did not change is not an obstacle, and its
// insides are not written.
func TestRestoreLeavesOthersValues(t *testing.T) {
	var sb strings.Builder
	w := bufio.NewWriter(&sb)
	var out io.Writer = w
	s := takeSnapshot([]Var{{Name: "out", Pos: "o.go:1", Addr: &out}})
	out = io.Discard
	if msg := s.restore(); s.problem != "" || msg != "" {
		t.Fatalf("restore: %s%s", s.problem, msg)
	}
	if out != io.Writer(w) {
		t.Errorf("out not put back")
	}
}

// Functions named as the compiler names them: literals and method values
// may hold captured variables.
func TestClosureNames(t *testing.T) {
	for _, tt := range []struct {
		name     string
		captures bool
	}{
		{"example.com/m/p.F", false},
		{"example.com/m/p.(*T).M", false},
		{"example.com/m/p.init.func3", false},
		{"example.com/m/p.init.0.func1", true},
		{"example.com/m/p.F.func1", true},
		{"example.com/m/p.F.func1.2", true},
		{"example.com/m/p.(*T).M-fm", true},
		{"example.com/m/p.G[go.shape.int]", false},
		{"example.com/m/p.G[go.shape.struct { example.com/m/p.x int }].func1", true},
		{"gopkg.in/yaml%2ev3.Marshal", false},
	} {
		if got := closureName(tt.name); got != tt.captures {
			t.Errorf("%s: captures %v, want %v", tt.name, got, tt.captures)
		}
	}
}

func want(ok bool, format string, args ...any) string {
	if ok {
		return ""
	}
	return fmt.Sprintf(format, args...)
}

func sameMap[K comparable, V any](a, b map[K]V) bool {
	return *(*unsafe.Pointer)(unsafe.Pointer(&a)) == *(*unsafe.Pointer)(unsafe.Pointer(&b))
}
