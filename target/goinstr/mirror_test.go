package goinstr

import (
	"go/types"
	goversion "go/version"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestMirrorsMatchTheStandardLibrary checks the table of mirrors against the
// packages themselves: every name a mirror stands for exists in the
// standard package and in the mirror, as the same kind of object with the
// same signature (rewritten code must compile whatever it does with the
// name), and the mirrors of math/rand, math/rand/v2 and sync/atomic stand
// for every function the standard package has of their kind, so that no
// call draws from the real generator or makes an atomic operation unseen
// once a new Go adds one.
func TestMirrorsMatchTheStandardLibrary(t *testing.T) {
	var paths []string
	for std, m := range mirrors {
		paths = append(paths, std, m.path)
	}
	sort.Strings(paths)
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes}, paths...)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]*types.Package{}
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			t.Fatalf("%s: %v", p.PkgPath, p.Errors)
		}
		byPath[p.PkgPath] = p.Types
	}
	// complete are the standard packages whose functions must all be
	// mirrored, but those that make a generator or a source.
	complete := map[string]bool{"math/rand": true, "math/rand/v2": true, "sync/atomic": true}
	for std, m := range mirrors {
		sp, mp := byPath[std], byPath[m.path]
		if sp == nil || mp == nil {
			t.Fatalf("%s or %s not loaded", std, m.path)
		}
		if mp.Name() != sp.Name() {
			t.Errorf("%s is package %s, want %s as %s", m.path, mp.Name(), sp.Name(), std)
		}
		for name := range m.names {
			so, mo := sp.Scope().Lookup(name), mp.Scope().Lookup(name)
			switch {
			case so == nil && newerName(std+"."+name):
				// Added after the Go that runs the test.
			case so == nil:
				t.Errorf("%s.%s: not in the standard library", std, name)
			case mo == nil:
				t.Errorf("%s.%s: not in %s", std, name, m.path)
			case kind(so) != kind(mo):
				t.Errorf("%s.%s is a %s, its mirror a %s", std, name, kind(so), kind(mo))
			case kind(so) == "func" && signature(so) != signature(mo):
				t.Errorf("%s.%s is %s, its mirror %s", std, name, signature(so), signature(mo))
			}
		}
		if !complete[std] {
			continue
		}
		for _, name := range sp.Scope().Names() {
			o := sp.Scope().Lookup(name)
			if !o.Exported() || strings.HasPrefix(name, "New") {
				continue
			}
			if _, isFunc := o.(*types.Func); (isFunc || std == "sync/atomic") && !m.names[name] {
				t.Errorf("%s.%s is not mirrored", std, name)
			}
		}
	}
}

// addedIn names the names of the mirrors table that Go releases after the
// oldest that stdbg builds with added, with the release.
var addedIn = map[string]string{"testing/synctest.Sleep": "go1.27"}

// newerName reports whether name (path.Name) is one that a newer Go than
// the one running the test added.
func newerName(name string) bool {
	v, ok := addedIn[name]
	return ok && goversion.Compare(goversion.Lang(runtime.Version()), v) < 0
}

// kind names the kind of a package-level object.
func kind(o types.Object) string {
	switch o.(type) {
	case *types.Func:
		return "func"
	case *types.TypeName:
		return "type"
	case *types.Var:
		return "var"
	case *types.Const:
		return "const"
	}
	return "?"
}

// signature is the signature of function o without its parameters' names,
// its packages named by their names and its type parameters' constraints by
// their type sets: a mirror's *time.Timer reads as the standard library's.
func signature(o types.Object) string {
	sig := o.Type().(*types.Signature)
	qual := func(p *types.Package) string { return p.Name() }
	list := func(t *types.Tuple) string {
		var s []string
		for i := range t.Len() {
			s = append(s, types.TypeString(t.At(i).Type(), qual))
		}
		return "(" + strings.Join(s, ", ") + ")"
	}
	var tparams []string
	for i := range sig.TypeParams().Len() {
		tp := sig.TypeParams().At(i)
		tparams = append(tparams, tp.Obj().Name()+" "+types.TypeString(tp.Constraint().Underlying(), qual))
	}
	s := "func" + list(sig.Params()) + list(sig.Results())
	if sig.Variadic() {
		s += " variadic"
	}
	if len(tparams) > 0 {
		s = "[" + strings.Join(tparams, ", ") + "]" + s
	}
	return s
}

// mirroredProgram uses a name of every mirrored package, each import's
// uses all rewritten but context's, math/rand/v2 under its own name in a
// file of its own, and embeds mirrored types in a struct whose fields it
// names.
var mirroredProgram = map[string]string{
	"main.go": `package main

import (
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// counter embeds a mirrored type: the rewritten field keeps its name.
type counter struct {
	sync.Mutex
	atomic.Int64
}

func main() {
	var c counter
	c.Mutex.Lock()
	c.Int64.Add(1)
	c.Unlock()
	var mu sync.Mutex
	var n int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); mu.Lock(); atomic.AddInt64(&n, 2); mu.Unlock() }()
	wg.Wait()
	runtime.Gosched()
	time.Sleep(time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	cancel()
	<-ctx.Done()
	fmt.Println(atomic.LoadInt64(&n)+c.Load(), ctx.Err(), rand.Intn(1), v2())
}
`,
	"v2.go": `package main

import "math/rand/v2"

func v2() int { return rand.IntN(1) }
`,
}

// A program that uses the mirrored packages compiles once instrumented, in
// modules of an old and a recent go version, and prints what it prints
// uninstrumented (outside a check the mirrors are the standard library).
func TestInstrumentMirroredProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs")
	}
	for _, v := range []string{"1.16", "1.22"} {
		t.Run("go"+v, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"go.mod": "module example.com/m\n\ngo " + v + "\n"}
			for name, src := range mirroredProgram {
				files[name] = src
			}
			writeTree(t, dir, files)
			res, err := Instrument(Config{Dir: dir, Cache: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			ws, err := Workspace(dir, t.TempDir(), false)
			if err != nil {
				t.Fatal(err)
			}
			run := func(env []string, args ...string) string {
				t.Helper()
				exe := filepath.Join(t.TempDir(), "prog")
				out, err := goCmd(t, dir, env, append(append([]string{"build", "-o", exe}, args...), ".")...)
				if err != nil {
					t.Fatalf("go build %v: %v\n%s", args, err, out)
				}
				out2, err := exec.Command(exe).CombinedOutput()
				if err != nil {
					t.Fatalf("running %v: %v\n%s", args, err, out2)
				}
				return string(out2)
			}
			plain, instrumented := run(nil), run(ws.Env, "-overlay="+res.Overlay)
			if plain != "3 context canceled 0 0\n" || instrumented != plain {
				t.Errorf("instrumented output %q, plain %q", instrumented, plain)
			}
		})
	}
}
