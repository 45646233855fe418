package goinstr

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"
)

// spinFset and spinImporter are shared by the tests: the importer
// type-checks the standard packages from their sources once.
var (
	spinFset     = token.NewFileSet()
	spinImporter = importer.ForCompiler(spinFset, "source", nil)
)

// spinRewrite rewrites the source of a file of package p and returns the
// result.
func spinRewrite(t *testing.T, src string) string {
	t.Helper()
	fset := spinFset
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{},
		Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{},
		Implicits: map[ast.Node]types.Object{}, Scopes: map[ast.Node]*types.Scope{}}
	conf := types.Config{Importer: spinImporter}
	pkg, err := conf.Check("example.com/p", fset, []*ast.File{f}, info)
	if err != nil {
		t.Fatalf("type-checking:\n%s\n%v", src, err)
	}
	r := &fileRewriter{fset: fset, file: f, tf: fset.File(f.Pos()), src: []byte(src), info: info, types: pkg,
		warn: func(token.Pos, string, ...any) {}, notInstrumented: func(token.Pos, string, ...any) {}, lang: "go1.22"}
	out, err := r.rewrite()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestSpinLoops: the loops marked are those whose iterations, on every path
// that stays in the loop, write only variables declared in the body and
// read only what stays put or what the checker sees; every other loop is
// explored as it is (a retry that counts, however it counts, keeps its
// bug).
func TestSpinLoops(t *testing.T) {
	const head = `package p

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var global bool
var word int32

type state struct {
	ready atomic.Bool
	done  bool
}

func use(...any) {}

var _, _, _ = fmt.Sprint, time.Now, runtime.Gosched

var _ testing.TB
`
	tests := []struct {
		name   string
		body   string // of func f(s *state, mu *sync.Mutex, ch chan int)
		marked bool
	}{
		{"an atomic flag", `var ready atomic.Bool
		go func() { ready.Store(true) }()
		for !ready.Load() {
		}`, true},
		{"a flag behind a pointer that stays put", `for !s.ready.Load() {
		}`, true},
		{"a compare-and-swap of a global", `for !atomic.CompareAndSwapInt32(&word, 0, 1) {
		}`, true},
		{"a select's default and a yield", `for {
			select {
			case v := <-ch:
				use(v)
				return
			default:
			}
			runtime.Gosched()
		}`, true},
		{"a timer's channel", `timer := time.NewTimer(time.Second)
		for {
			select {
			case <-timer.C:
				return
			default:
			}
			runtime.Gosched()
		}`, true},
		{"a trylock", `for !mu.TryLock() {
			runtime.Gosched()
		}`, true},
		{"a way out that writes", `result := int32(0)
		for {
			if v := atomic.LoadInt32(&word); v != 0 {
				result = v
				break
			}
			runtime.Gosched()
		}
		use(result)`, true},
		{"variables of the body", `for {
			n := atomic.LoadInt32(&word)
			n++
			if n > 5 {
				return
			}
		}`, true},
		{"a test that gives up", `t := new(testing.T)
		timer := time.NewTimer(time.Second)
		for !s.ready.Load() {
			select {
			case <-timer.C:
				t.Fatal("timed out")
			default:
			}
		}`, true},
		{"a goroutine that ends itself", `for !s.ready.Load() {
			if mu.TryLock() {
				runtime.Goexit()
			}
		}`, true},
		{"a captured ticker that stays put", `tick := time.NewTicker(time.Millisecond)
		go func() {
			for !s.ready.Load() {
				select {
				case <-tick.C:
				default:
				}
			}
		}()`, true},

		{"a count in the post statement", `for i := 0; !s.ready.Load(); i++ {
		}`, false},
		{"a count declared outside", `tries := 0
		for !s.ready.Load() {
			tries++
		}
		use(tries)`, false},
		{"a count behind a pointer", `n := new(int)
		for !s.ready.Load() {
			*n++
		}`, false},
		{"a closure that counts", `tries := 0
		try := func() bool { tries++; return s.ready.Load() }
		for !try() {
			runtime.Gosched()
		}`, false},
		{"a plain read of a package-level variable", `for !global {
			runtime.Gosched()
		}`, false},
		{"a plain read of a captured variable", `done := false
		go func() { done = true }()
		for !done {
			runtime.Gosched()
		}`, false},
		{"a captured variable assigned later", `tick := time.NewTicker(time.Millisecond)
		go func() {
			for !s.ready.Load() {
				select {
				case <-tick.C:
				default:
				}
			}
		}()
		tick = nil`, false},
		{"a captured variable whose address is taken", `flag := false
		go func() {
			for !flag {
				runtime.Gosched()
			}
		}()
		p := &flag
		*p = true`, false},
		{"a captured named result", `_ = func() (done bool) {
			go func() {
				for !done {
					runtime.Gosched()
				}
			}()
			return true
		}`, false},
		{"a captured range variable", `for _, b := range []bool{false, true} {
			go func() {
				for !b {
					runtime.Gosched()
				}
			}()
		}`, false},
		{"a test that logs and goes on", `t := new(testing.T)
		for !s.ready.Load() {
			t.Log("waiting")
		}`, false},
		{"a plain read behind a pointer", `for !s.done {
			runtime.Gosched()
		}`, false},
		{"the clock", `start := time.Now()
		for time.Since(start) < time.Second {
		}`, false},
		{"a call of the program's", `for !s.ready.Load() {
			fmt.Println("waiting")
		}`, false},
		{"a way out that comes back", `n := 0
		for {
			if s.ready.Load() {
				n++
				continue
			}
			break
		}
		use(n)`, false},
		{"a goroutine started in the loop", `for !s.ready.Load() {
			go runtime.Gosched()
		}`, false},
		{"a goto back to the loop", `again:
		for !s.ready.Load() {
		}
		if !s.ready.Load() {
			goto again
		}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + "\nfunc f(s *state, mu *sync.Mutex, ch chan int) {\n\t\t" + tt.body + "\n}\n"
			out := spinRewrite(t, src)
			if got := strings.Contains(out, "SpinEnter(") && strings.Contains(out, "SpinHead("); got != tt.marked {
				t.Errorf("marked %v, want %v:\n%s", got, tt.marked, out)
			}
			if n := strings.Count(out, "\n"); out != "" && n != strings.Count(src, "\n") {
				t.Errorf("%d lines rewritten into %d", strings.Count(src, "\n"), n)
			}
		})
	}
}
