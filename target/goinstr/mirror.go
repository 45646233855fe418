package goinstr

import (
	"fmt"
	"go/ast"
	"go/types"
	"sort"
	"strings"
)

// What the rewritten code calls. A use of a name of the standard library
// that the checker must see becomes a use of the same name in sthread's
// mirror of its package (time.Sleep becomes stdbgtime.Sleep, stdbgtime
// importing github.com/stdbg/stdbg/sthread/time): names stay the standard
// library's, only the import path changes. What the language itself does
// (go statements, channel operations, select, range over channels) and the
// wrapping of tests becomes calls of package sthread and of its package
// lang.

// sthreadPath is the import path of package sthread: go statements become
// calls of its Go, and main's body runs inside its Run.
const sthreadPath = "github.com/stdbg/stdbg/sthread"

// langPath is the import path of the package that channel operations,
// select statements, range loops over channels and test functions are
// rewritten onto.
const langPath = sthreadPath + "/lang"

// A mirror is the package of sthread that stands for a package of the
// standard library in rewritten code.
type mirror struct {
	path  string          // its import path
	names map[string]bool // the standard package's names it has, under which the rewritten code uses it
}

// mirrors maps the import path of a package of the standard library to its
// mirror. The names of the standard package that are not listed (time.Parse,
// context.Background, sync.Pool, rand.New, ...) stay the standard
// library's.
var mirrors = map[string]mirror{
	"sync": {sthreadPath + "/sync", nameSet(
		"Mutex", "RWMutex", "WaitGroup", "Once", "Cond", "NewCond", "Locker", "Map")},
	"sync/atomic":   {sthreadPath + "/sync/atomic", atomicNames()},
	"runtime":       {sthreadPath + "/runtime", nameSet("Gosched", "Caller", "Callers", "Stack")},
	"runtime/debug": {sthreadPath + "/runtime/debug", nameSet("Stack", "PrintStack")},
	"time": {sthreadPath + "/time", nameSet(
		"Sleep", "After", "Tick", "NewTimer", "NewTicker", "AfterFunc", "Timer", "Ticker", "Now", "Since", "Until")},
	"context": {sthreadPath + "/context", nameSet(
		"WithCancel", "WithCancelCause", "WithTimeout", "WithTimeoutCause", "WithDeadline", "WithDeadlineCause",
		"WithoutCancel", "Cause", "AfterFunc")},
	// The top-level functions that draw from the shared generator.
	"math/rand": {sthreadPath + "/math/rand", nameSet(
		"ExpFloat64", "Float32", "Float64", "Int", "Int31", "Int31n", "Int63", "Int63n", "Intn",
		"NormFloat64", "Perm", "Read", "Seed", "Shuffle", "Uint32", "Uint64")},
	"math/rand/v2": {sthreadPath + "/math/rand/v2", nameSet(
		"ExpFloat64", "Float32", "Float64", "Int", "Int32", "Int32N", "Int64", "Int64N", "IntN", "N",
		"NormFloat64", "Perm", "Shuffle", "Uint", "Uint32", "Uint32N", "Uint64", "Uint64N", "UintN")},
	// Bubbles: their goroutines are the checked program's.
	"testing/synctest": {sthreadPath + "/testing/synctest", nameSet("Test", "Wait", "Sleep")},
}

// nameSet is the set of names.
func nameSet(names ...string) map[string]bool {
	s := make(map[string]bool, len(names))
	for _, n := range names {
		s[n] = true
	}
	return s
}

// atomicNames are the names of sync/atomic: its types, and its functions
// (Add, And, Or, Load, Store, Swap and CompareAndSwap of each type that
// has them).
func atomicNames() map[string]bool {
	s := nameSet("Int32", "Int64", "Uint32", "Uint64", "Uintptr", "Bool", "Pointer", "Value")
	for _, op := range []string{"Add", "And", "Or", "Load", "Store", "Swap", "CompareAndSwap"} {
		for _, t := range []string{"Int32", "Int64", "Uint32", "Uint64", "Uintptr", "Pointer"} {
			if t == "Pointer" && (op == "Add" || op == "And" || op == "Or") {
				continue
			}
			s[op+t] = true
		}
	}
	return s
}

// mirrored returns the mirror of name of the standard package path, or ok
// false when the rewritten code keeps the standard library's.
func mirrored(path, name string) (mirror, bool) {
	m, ok := mirrors[path]
	if !ok || !m.names[name] {
		return mirror{}, false
	}
	return m, true
}

// importName is the name under which rewritten files import the sthread
// package at path: "stdbg" and the package's path under sthread, without
// its slashes (stdbgsthread, stdbgtime, stdbgsyncatomic, stdbgmathrandv2).
// User code does not declare names that start with stdbg.
func importName(path string) string {
	rest := strings.TrimPrefix(strings.TrimPrefix(path, sthreadPath), "/")
	if rest == "" {
		rest = "sthread"
	}
	return "stdbg" + strings.ReplaceAll(rest, "/", "")
}

// qual returns the qualified name, in the rewritten file, of name of the
// sthread package at path, and records the package's import.
func (r *fileRewriter) qual(path, name string) string {
	if r.imported == nil {
		r.imported = map[string]bool{}
	}
	r.imported[path] = true
	return importName(path) + "." + name
}

// keepAlive names, per package path, an exported function that a rewritten
// file refers to so that its import stays used after its uses were
// rewritten.
var keepAlive = map[string]string{
	"sync":             "NewCond",
	"sync/atomic":      "AddInt32",
	"runtime":          "Gosched",
	"runtime/debug":    "Stack",
	"time":             "Now",
	"context":          "Background",
	"math/rand":        "Intn",
	"math/rand/v2":     "IntN",
	"testing/synctest": "Wait",
}

// selector rewrites a reference to a mirrored name of the standard library
// into the same name of its mirror.
func (r *fileRewriter) selector(s *ast.SelectorExpr) {
	id, ok := s.X.(*ast.Ident)
	if !ok {
		return
	}
	pn, ok := r.info.Uses[id].(*types.PkgName)
	if !ok {
		return
	}
	path := pn.Imported().Path()
	m, ok := mirrored(path, s.Sel.Name)
	if !ok {
		return
	}
	r.replace(s.Pos(), s.End(), r.qual(m.path, s.Sel.Name))
	r.used[path] = true
}

// imports adds the imports of sthread's packages on the package clause's
// line, and keeps used the imports whose uses were all rewritten.
func (r *fileRewriter) imports() {
	paths := make([]string, 0, len(r.imported))
	for p := range r.imported {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var imp strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&imp, "; import %s %q", importName(p), p)
	}
	r.insert(r.file.Name.End(), imp.String(), 0)
	var keep []string
	for _, spec := range r.file.Imports {
		path := strings.Trim(spec.Path.Value, `"`)
		fn, ok := keepAlive[path]
		if !ok || !r.used[path] {
			continue
		}
		// The name the file imports the package under: its package
		// name (rand for math/rand/v2) unless the import names one.
		pn := r.info.PkgNameOf(spec)
		if pn == nil || pn.Name() == "_" || pn.Name() == "." {
			continue
		}
		name := pn.Name()
		keep = append(keep, fmt.Sprintf("var _ = %s.%s", name, fn))
	}
	if len(keep) > 0 {
		// Appended after the user's last line.
		end := r.off(r.file.FileEnd)
		text := strings.Join(keep, "; ")
		if end > 0 && r.src[end-1] != '\n' {
			text = ";" + text
		}
		r.ed.insert(end, text, 1000)
	}
}
