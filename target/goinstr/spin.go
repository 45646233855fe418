package goinstr

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"hash/fnv"
)

// Spin loops (docs/spin.md). The checker lets a goroutine that came back
// to the state it was in, having changed nothing, wait for a write to what
// it read; in Go it cannot see the goroutine's plain reads and writes, nor
// its variables on the heap, so the rewriting marks the loops whose
// iterations can change nothing the checker does not see: their bodies
// (with their conditions and post statements) write only variables
// declared inside them, and read, besides those, only what stays put while
// they run (the function's own variables that no closure captures and whose
// address is never taken, constants) and what their operations read, which
// the checker sees (atomics, channel operations, select, TryLock, Gosched).
// A path that leaves the loop (a return, a break, a panic) may do anything:
// it does not come back. The rewriting marks such a loop twice:
//
//	for cond { body }   ->   lang.SpinEnter(ID); for cond { lang.SpinHead(ID); body }
//
// SpinEnter says that the goroutine enters the loop anew, SpinHead that it
// starts an iteration; the runtime fingerprints the goroutine at the first
// operation after a head by the loop and the entry, and the checker
// compares those fingerprints: between two heads of one entry, the
// goroutine's variables can only differ by what its operations returned.
// A loop the analysis cannot prove so (a call of a function of the
// program, a write to a variable declared outside, a read through a
// pointer or of a package-level variable) is left as it is: its iterations
// are explored like any code.

// spinLoop marks the for loop f, found under the enclosing nodes stack,
// when its iterations can only change what the checker sees.
func (r *fileRewriter) spinLoop(f *ast.ForStmt, stack []ast.Node) {
	var fn ast.Node // the innermost function around the loop
	for i := len(stack) - 2; i >= 0 && fn == nil; i-- {
		switch s := stack[i].(type) {
		case *ast.FuncDecl:
			fn = s
		case *ast.FuncLit:
			fn = s
		}
	}
	if fn == nil || f.Body == nil {
		return
	}
	var label *ast.LabeledStmt
	if len(stack) >= 2 {
		if l, ok := stack[len(stack)-2].(*ast.LabeledStmt); ok && l.Stmt == f {
			label = l
		}
	}
	if label != nil && gotoTarget(r.info, fn, label.Label) {
		return // a goto would enter the loop past its SpinEnter
	}
	a := &spinAnalysis{r: r, loop: f, fn: fn, label: label}
	if !a.pure() {
		return
	}
	id := r.spinID(f)
	at := f.Pos()
	if label != nil {
		at = label.Pos()
	}
	r.insert(at, fmt.Sprintf("%s(%#x); ", r.qual(langPath, "SpinEnter"), id), 0)
	r.insert(f.Body.Lbrace+1, fmt.Sprintf(" %s(%#x);", r.qual(langPath, "SpinHead"), id), 0)
}

// gotoTarget reports whether a goto of function fn jumps to label l.
func gotoTarget(info *types.Info, fn ast.Node, l *ast.Ident) bool {
	found := false
	ast.Inspect(fn, func(n ast.Node) bool {
		if b, ok := n.(*ast.BranchStmt); ok && b.Tok == token.GOTO && b.Label != nil && info.Uses[b.Label] == info.Defs[l] {
			found = true
		}
		return !found
	})
	return found
}

// spinID names loop f in the whole program: a hash of its package, file
// and place.
func (r *fileRewriter) spinID(f *ast.ForStmt) uint64 {
	h := fnv.New64a()
	p := r.fset.Position(f.Pos())
	fmt.Fprintf(h, "%s\x00%s\x00%d", r.types.Path(), p.Filename, p.Offset)
	if id := h.Sum64(); id != 0 {
		return id
	}
	return 1
}

// spinAnalysis decides whether a loop's iterations can only change what
// the checker sees.
type spinAnalysis struct {
	r     *fileRewriter
	loop  *ast.ForStmt
	label *ast.LabeledStmt
	fn    ast.Node // the function the loop is in (*ast.FuncDecl or *ast.FuncLit)
	// shared: the function's variables that a closure captures or whose
	// address is taken, which another goroutine may write.
	shared map[*types.Var]bool
	// written: the file's variables that are written after their
	// declaration, or may be (see findWritten); nil until asked.
	written map[*types.Var]bool
}

// pure reports whether the loop's condition, post statement and body,
// every path of which that stays in the loop, write only variables
// declared in the body and read only what stays put or what the checker
// sees.
func (a *spinAnalysis) pure() bool {
	a.findShared()
	l := a.loop
	if l.Cond != nil && !a.value(l.Cond) {
		return false
	}
	if l.Post != nil && !a.stmt(l.Post, nil) {
		return false
	}
	return a.block(l.Body.List, []ast.Node{l})
}

// inside reports whether v is declared within the loop's body: a new
// variable for each iteration.
func (a *spinAnalysis) inside(v *types.Var) bool {
	return v.Pos() >= a.loop.Body.Pos() && v.Pos() < a.loop.Body.End()
}

// local reports whether v is a variable of the loop's function itself
// (declared in its body, or its receiver, a parameter or a result): not a
// package-level variable, not a variable of an enclosing function that the
// loop's function captures.
func (a *spinAnalysis) local(v *types.Var) bool {
	return !v.IsField() && v.Pos() >= a.fn.Pos() && v.Pos() < a.fn.End()
}

// stable reports whether a plain read of v returns the same value in every
// iteration: v is declared in the body (read after it is set in the same
// iteration), or it is a variable of the function that nothing but the
// function's own code can write (the loop does not: see assigned).
func (a *spinAnalysis) stable(v *types.Var) bool {
	return a.inside(v) || a.local(v) && !a.shared[v] || a.fixed(v)
}

// fixed reports whether v is a variable of a function of the file (not a
// package-level one, not a field) that keeps the value it was declared
// with: no statement of the file assigns it again and nothing takes its
// address. A closure that captures it reads that value, which was set
// before the closure existed.
func (a *spinAnalysis) fixed(v *types.Var) bool {
	if v.IsField() || v.Pkg() != a.r.types || v.Parent() == nil || v.Parent() == a.r.types.Scope() ||
		v.Pos() < a.r.file.Pos() || v.Pos() >= a.r.file.End() {
		return false
	}
	if a.written == nil {
		a.written = findWritten(a.r.info, a.r.file)
	}
	return !a.written[v]
}

// findWritten returns the variables of file f that may change after their
// declaration: those assigned (with =, an operator and =, ++ or --, a :=
// that redeclares them, a range clause), those whose address is taken
// (&v, a slice of an array, a method with a pointer receiver called on
// them), the named results of functions (a return sets them) and the
// variables a range or for clause declares (shared by the iterations
// before Go 1.22).
func findWritten(info *types.Info, f *ast.File) map[*types.Var]bool {
	w := map[*types.Var]bool{}
	mark := func(e ast.Expr) {
		if v := rootVar(info, e); v != nil {
			w[v] = true
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, e := range n.Lhs {
				if id, ok := ast.Unparen(e).(*ast.Ident); ok && n.Tok == token.DEFINE {
					if v, ok := info.Uses[id].(*types.Var); ok {
						w[v] = true // redeclared
					}
					continue
				}
				mark(e)
			}
		case *ast.IncDecStmt:
			mark(n.X)
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{n.Key, n.Value} {
				if e == nil {
					continue
				}
				mark(e)
				if id, ok := e.(*ast.Ident); ok {
					if v, ok := info.Defs[id].(*types.Var); ok {
						w[v] = true
					}
				}
			}
		case *ast.ForStmt:
			if as, ok := n.Init.(*ast.AssignStmt); ok && as.Tok == token.DEFINE {
				for _, e := range as.Lhs {
					if id, ok := e.(*ast.Ident); ok {
						if v, ok := info.Defs[id].(*types.Var); ok {
							w[v] = true
						}
					}
				}
			}
		case *ast.FuncType:
			if n.Results != nil {
				for _, fl := range n.Results.List {
					for _, id := range fl.Names {
						if v, ok := info.Defs[id].(*types.Var); ok {
							w[v] = true
						}
					}
				}
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				mark(n.X)
			}
		case *ast.SliceExpr:
			if t := info.TypeOf(n.X); t != nil {
				if _, ok := t.Underlying().(*types.Array); ok {
					mark(n.X)
				}
			}
		case *ast.SelectorExpr:
			if pointerMethodOnValue(info, n) {
				mark(n.X)
			}
		}
		return true
	})
	return w
}

// pointerMethodOnValue reports whether n selects a method with a pointer
// receiver on an operand that is not a pointer: calling it takes the
// operand's address.
func pointerMethodOnValue(info *types.Info, n *ast.SelectorExpr) bool {
	sel := info.Selections[n]
	if sel == nil || sel.Kind() == types.FieldVal {
		return false
	}
	sig, ok := sel.Obj().Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return false
	}
	if _, ptr := sig.Recv().Type().(*types.Pointer); !ptr {
		return false
	}
	_, xptr := info.TypeOf(n.X).Underlying().(*types.Pointer)
	return !xptr
}

// findShared collects the variables of the loop's function that a closure
// captures or whose address is taken.
func (a *spinAnalysis) findShared() {
	a.shared = map[*types.Var]bool{}
	info := a.r.info
	var lits []*ast.FuncLit
	ast.Inspect(a.fn, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			lits = append(lits, n)
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				if v := rootVar(info, n.X); v != nil {
					a.shared[v] = true
				}
			}
		case *ast.SliceExpr:
			if t := info.TypeOf(n.X); t != nil {
				if _, ok := t.Underlying().(*types.Array); ok {
					if v := rootVar(info, n.X); v != nil {
						a.shared[v] = true
					}
				}
			}
		case *ast.SelectorExpr:
			// A method with a pointer receiver called on a variable
			// takes its address.
			if pointerMethodOnValue(info, n) {
				if v := rootVar(info, n.X); v != nil {
					a.shared[v] = true
				}
			}
		}
		return true
	})
	for _, lit := range lits {
		ast.Inspect(lit.Body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if v, ok := info.Uses[id].(*types.Var); ok && !v.IsField() && (v.Pos() < lit.Pos() || v.Pos() >= lit.End()) {
					a.shared[v] = true
				}
			}
			return true
		})
	}
}

// rootVar returns the variable at the root of e, a variable or a selection
// of its fields or array elements, without going through a pointer; nil
// if there is none.
func rootVar(info *types.Info, e ast.Expr) *types.Var {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			v, _ := info.Uses[x].(*types.Var)
			if v == nil {
				v, _ = info.Defs[x].(*types.Var)
			}
			return v
		case *ast.SelectorExpr:
			sel := info.Selections[x]
			if sel == nil || sel.Kind() != types.FieldVal || sel.Indirect() {
				return nil
			}
			e = x.X
		case *ast.IndexExpr:
			t := info.TypeOf(x.X)
			if t == nil {
				return nil
			}
			if _, ok := t.Underlying().(*types.Array); !ok {
				return nil
			}
			e = x.X
		default:
			return nil
		}
	}
}

// block checks a list of statements under the breakable statements outs
// (the loop first, then the for, range, switch and select statements
// nested in it): a list whose last statement leaves the loop is a way out,
// checked only for not coming back (exit).
func (a *spinAnalysis) block(list []ast.Stmt, outs []ast.Node) bool {
	if len(list) > 0 && a.leaves(list[len(list)-1], outs) {
		for _, s := range list {
			if !a.exit(s, outs) {
				return false
			}
		}
		return true
	}
	for _, s := range list {
		if !a.stmt(s, outs) {
			return false
		}
	}
	return true
}

// leaves reports whether statement s, under outs, leaves the loop for
// good: a return, a panic, a break of the loop or of a statement around
// it, a continue of a loop around it.
func (a *spinAnalysis) leaves(s ast.Stmt, outs []ast.Node) bool {
	switch s := s.(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.ExprStmt:
		if c, ok := s.X.(*ast.CallExpr); ok && (a.r.builtin(c.Fun) == "panic" || a.noReturn(c)) {
			return true
		}
	case *ast.BranchStmt:
		switch s.Tok {
		case token.BREAK:
			if s.Label == nil {
				return len(outs) == 1 // the loop is the innermost breakable
			}
			return a.isLoopLabel(s.Label) || !a.labelInside(s.Label)
		case token.CONTINUE:
			return s.Label != nil && !a.labelInside(s.Label) && !a.isLoopLabel(s.Label)
		}
	}
	return false
}

// noReturns are the functions and methods that never return to their
// caller, by package path and name (a method by its name alone, whatever
// its receiver in the package): they end the goroutine (runtime.Goexit,
// and a test's FailNow, Fatal and Skip, which call it), the program
// (os.Exit, log.Fatal) or panic (log.Panic).
var noReturns = map[string]map[string]bool{
	"runtime": nameSet("Goexit"),
	"os":      nameSet("Exit"),
	"log":     nameSet("Fatal", "Fatalf", "Fatalln", "Panic", "Panicf", "Panicln"),
	"testing": nameSet("Fatal", "Fatalf", "FailNow", "Skip", "Skipf", "SkipNow"),
}

// noReturn reports whether call c is of a function or method that never
// returns (noReturns), in its standard package or in sthread's mirror of
// it: a statement list that ends with it leaves the loop for good.
func (a *spinAnalysis) noReturn(c *ast.CallExpr) bool {
	var obj types.Object
	switch f := ast.Unparen(c.Fun).(type) {
	case *ast.Ident:
		obj = a.r.info.Uses[f]
	case *ast.SelectorExpr:
		if sel := a.r.info.Selections[f]; sel != nil {
			if sel.Kind() != types.MethodVal {
				return false
			}
			obj = sel.Obj()
		} else {
			obj = a.r.info.Uses[f.Sel]
		}
	}
	fn, ok := obj.(*types.Func)
	if !ok || fn.Pkg() == nil {
		return false
	}
	path := fn.Pkg().Path()
	if len(path) > len(sthreadPath)+1 && path[:len(sthreadPath)+1] == sthreadPath+"/" {
		path = path[len(sthreadPath)+1:]
	}
	return noReturns[path][fn.Name()]
}

// isLoopLabel reports whether l labels the loop itself.
func (a *spinAnalysis) isLoopLabel(l *ast.Ident) bool {
	return a.label != nil && a.r.info.Uses[l] != nil && a.r.info.Uses[l] == a.r.info.Defs[a.label.Label]
}

// labelInside reports whether label l is declared within the loop (or is
// the loop's own).
func (a *spinAnalysis) labelInside(l *ast.Ident) bool {
	obj := a.r.info.Uses[l]
	if obj == nil {
		return true
	}
	if a.isLoopLabel(l) {
		return true
	}
	return obj.Pos() >= a.loop.Pos() && obj.Pos() < a.loop.End()
}

// exit checks a statement of a way out: it may do anything but come back
// into the loop (a continue of the loop, a goto).
func (a *spinAnalysis) exit(s ast.Stmt, outs []ast.Node) bool {
	ok := true
	depth := 0 // loops nested in s that an unlabeled continue would go on
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		if !ok {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // its statements are not the loop's
		case *ast.ForStmt, *ast.RangeStmt:
			depth++
			ast.Inspect(n, func(m ast.Node) bool {
				if m == n {
					return true
				}
				return visit(m)
			})
			depth--
			return false
		case *ast.BranchStmt:
			switch {
			case n.Tok == token.GOTO:
				ok = false
			case n.Tok == token.CONTINUE && n.Label == nil && depth == 0 && len(outs) > 0:
				// The innermost loop around it is outs' last loop.
				ok = !a.continuesLoop(outs)
			case n.Tok == token.CONTINUE && n.Label != nil && a.isLoopLabel(n.Label):
				ok = false
			}
		}
		return true
	}
	ast.Inspect(s, visit)
	return ok
}

// continuesLoop reports whether an unlabeled continue under outs goes on
// with the loop: no for or range statement nested in it comes between.
func (a *spinAnalysis) continuesLoop(outs []ast.Node) bool {
	for i := len(outs) - 1; i > 0; i-- {
		switch outs[i].(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			return false
		}
	}
	return true
}

// stmt checks a statement that may stay in the loop.
func (a *spinAnalysis) stmt(s ast.Stmt, outs []ast.Node) bool {
	switch s := s.(type) {
	case nil:
		return true
	case *ast.EmptyStmt:
		return true
	case *ast.ExprStmt:
		return a.value(s.X)
	case *ast.IncDecStmt:
		return a.target(s.X)
	case *ast.AssignStmt:
		for _, e := range s.Lhs {
			if s.Tok != token.DEFINE && !a.target(e) {
				return false
			}
		}
		for _, e := range s.Rhs {
			if !a.value(e) {
				return false
			}
		}
		return true
	case *ast.DeclStmt:
		g, ok := s.Decl.(*ast.GenDecl)
		if !ok {
			return false
		}
		for _, sp := range g.Specs {
			if vs, ok := sp.(*ast.ValueSpec); ok {
				for _, e := range vs.Values {
					if !a.value(e) {
						return false
					}
				}
			}
		}
		return true
	case *ast.SendStmt:
		return a.value(s.Chan) && a.value(s.Value)
	case *ast.BlockStmt:
		return a.block(s.List, outs)
	case *ast.LabeledStmt:
		return a.stmt(s.Stmt, outs)
	case *ast.IfStmt:
		return a.stmt(s.Init, outs) && a.value(s.Cond) && a.block(s.Body.List, outs) && a.stmt(s.Else, outs)
	case *ast.SwitchStmt:
		if !a.stmt(s.Init, outs) || s.Tag != nil && !a.value(s.Tag) {
			return false
		}
		inner := append(outs[:len(outs):len(outs)], s)
		for _, c := range s.Body.List {
			cc := c.(*ast.CaseClause)
			for _, e := range cc.List {
				if !a.value(e) {
					return false
				}
			}
			if !a.block(cc.Body, inner) {
				return false
			}
		}
		return true
	case *ast.TypeSwitchStmt:
		if !a.stmt(s.Init, outs) || !a.stmt(s.Assign, outs) {
			return false
		}
		inner := append(outs[:len(outs):len(outs)], s)
		for _, c := range s.Body.List {
			if !a.block(c.(*ast.CaseClause).Body, inner) {
				return false
			}
		}
		return true
	case *ast.SelectStmt:
		inner := append(outs[:len(outs):len(outs)], s)
		for _, c := range s.Body.List {
			cc := c.(*ast.CommClause)
			if !a.stmt(cc.Comm, inner) || !a.block(cc.Body, inner) {
				return false
			}
		}
		return true
	case *ast.ForStmt:
		inner := append(outs[:len(outs):len(outs)], s)
		return a.stmt(s.Init, inner) && (s.Cond == nil || a.value(s.Cond)) && a.stmt(s.Post, inner) &&
			a.block(s.Body.List, inner)
	case *ast.RangeStmt:
		if !a.rangeable(s.X) {
			return false
		}
		if s.Tok != token.DEFINE {
			for _, e := range []ast.Expr{s.Key, s.Value} {
				if e != nil && !a.target(e) {
					return false
				}
			}
		}
		return a.block(s.Body.List, append(outs[:len(outs):len(outs)], s))
	case *ast.BranchStmt:
		return s.Tok != token.GOTO
	case *ast.ReturnStmt:
		return true
	}
	return false // go, defer and anything else
}

// rangeable reports whether a range over e reads only what stays put or
// what the checker sees: an integer, an array or a string held in such a
// variable, or a channel (its receives are operations).
func (a *spinAnalysis) rangeable(e ast.Expr) bool {
	t := a.r.info.TypeOf(e)
	if t == nil {
		return false
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return (u.Info()&types.IsInteger != 0 || u.Info()&types.IsString != 0) && a.value(e)
	case *types.Array, *types.Chan:
		return a.value(e)
	}
	return false
}

// target reports whether an assignment to e writes only a variable
// declared in the loop's body (or a field or array element of one), or
// nothing (the blank identifier).
func (a *spinAnalysis) target(e ast.Expr) bool {
	if id, ok := ast.Unparen(e).(*ast.Ident); ok && id.Name == "_" {
		return true
	}
	v := rootVar(a.r.info, e)
	return v != nil && a.inside(v) && a.indexes(e)
}

// indexes reports whether the array indexes in the selection e read only
// what stays put.
func (a *spinAnalysis) indexes(e ast.Expr) bool {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			if !a.value(x.Index) {
				return false
			}
			e = x.X
		default:
			return true
		}
	}
}

// value reports whether evaluating e reads only what stays put or what
// the checker sees, and calls nothing but the operations it sees.
func (a *spinAnalysis) value(e ast.Expr) bool {
	info := a.r.info
	if tv, ok := info.Types[e]; ok && (tv.Value != nil || tv.IsType() || tv.IsNil()) {
		return true // a constant, a type, nil
	}
	switch x := e.(type) {
	case *ast.BasicLit:
		return true
	case *ast.ParenExpr:
		return a.value(x.X)
	case *ast.Ident:
		switch obj := info.Uses[x].(type) {
		case *types.Var:
			return a.stable(obj)
		case *types.Func, *types.Const, *types.TypeName, *types.Nil, *types.Builtin:
			return true
		}
		return false
	case *ast.SelectorExpr:
		if sel := info.Selections[x]; sel != nil {
			if sel.Kind() == types.FieldVal && sel.Indirect() && timerChannel(sel) {
				return a.value(x.X) // set when the timer is made, then never
			}
			if sel.Kind() != types.FieldVal || sel.Indirect() {
				return false // a method value, or a field behind a pointer
			}
			return a.value(x.X)
		}
		// A qualified name: a function, a constant, a type.
		switch info.Uses[x.Sel].(type) {
		case *types.Func, *types.Const, *types.TypeName:
			return true
		}
		return false
	case *ast.IndexExpr:
		t := info.TypeOf(x.X)
		if t == nil {
			return false
		}
		if _, ok := t.Underlying().(*types.Signature); ok {
			return true // an instantiation
		}
		switch u := t.Underlying().(type) {
		case *types.Array:
			return a.value(x.X) && a.value(x.Index)
		case *types.Basic:
			return u.Info()&types.IsString != 0 && a.value(x.X) && a.value(x.Index)
		}
		return false
	case *ast.SliceExpr:
		t := info.TypeOf(x.X)
		if b, ok := t.Underlying().(*types.Basic); !ok || b.Info()&types.IsString == 0 {
			return false
		}
		for _, p := range []ast.Expr{x.X, x.Low, x.High, x.Max} {
			if p != nil && !a.value(p) {
				return false
			}
		}
		return true
	case *ast.UnaryExpr:
		if x.Op == token.AND {
			return a.address(x.X)
		}
		return a.value(x.X) // <-ch is an operation the checker sees
	case *ast.BinaryExpr:
		return a.value(x.X) && a.value(x.Y)
	case *ast.TypeAssertExpr:
		return a.value(x.X)
	case *ast.CompositeLit:
		for _, el := range x.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				el = kv.Value
			}
			if !a.value(el) {
				return false
			}
		}
		return true
	case *ast.CallExpr:
		return a.call(x)
	}
	return false
}

// address reports whether the address of e is computed from what stays
// put: a variable, a field or array element of one, or a field or element
// behind a pointer that stays put.
func (a *spinAnalysis) address(e ast.Expr) bool {
	info := a.r.info
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		_, ok := info.Uses[x].(*types.Var)
		return ok
	case *ast.SelectorExpr:
		sel := info.Selections[x]
		if sel == nil || sel.Kind() != types.FieldVal {
			return false
		}
		if sel.Indirect() {
			return a.value(x.X)
		}
		return a.address(x.X)
	case *ast.IndexExpr:
		t := info.TypeOf(x.X)
		if t == nil || !a.value(x.Index) {
			return false
		}
		switch t.Underlying().(type) {
		case *types.Array:
			return a.address(x.X)
		case *types.Slice, *types.Pointer:
			return a.value(x.X)
		}
		return false
	case *ast.StarExpr:
		return a.value(x.X)
	case *ast.CompositeLit:
		return a.value(x)
	}
	return false
}

// timerChannel reports whether sel selects the channel C of a timer or a
// ticker of package time (or of sthread's mirror of it).
func timerChannel(sel *types.Selection) bool {
	if sel.Obj().Name() != "C" {
		return false
	}
	t := sel.Recv()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return false
	}
	path := n.Obj().Pkg().Path()
	return (path == "time" || path == sthreadPath+"/time") && (n.Obj().Name() == "Timer" || n.Obj().Name() == "Ticker")
}

// spinCalls are the functions and methods the checker sees as operations,
// by package path and name ("Type.Method" for a method): the search
// interleaves goroutines around them and knows what they read and write.
var spinCalls = map[string]map[string]bool{
	"sync/atomic": nil, // all of it
	"sync": nameSet("Mutex.Lock", "Mutex.Unlock", "Mutex.TryLock", "RWMutex.Lock", "RWMutex.Unlock",
		"RWMutex.TryLock", "RWMutex.RLock", "RWMutex.RUnlock", "RWMutex.TryRLock", "WaitGroup.Add",
		"WaitGroup.Done", "WaitGroup.Wait", "Cond.Wait", "Cond.Signal", "Cond.Broadcast"),
	"runtime": nameSet("Gosched"),
	"time":    nameSet("Sleep"),
}

// spinPure are the builtins that read only their arguments.
var spinPure = nameSet("len", "cap", "min", "max", "real", "imag", "complex", "close")

// call reports whether call c is an operation the checker sees (or a
// conversion, or a builtin that reads only its arguments), with arguments
// that read only what stays put.
func (a *spinAnalysis) call(c *ast.CallExpr) bool {
	info := a.r.info
	args := func() bool {
		for _, e := range c.Args {
			if !a.value(e) {
				return false
			}
		}
		return true
	}
	if tv, ok := info.Types[c.Fun]; ok && tv.IsType() {
		return args() // a conversion
	}
	if b := a.r.builtin(c.Fun); b != "" {
		return spinPure[b] && args()
	}
	fun := ast.Unparen(c.Fun)
	if ix, ok := fun.(*ast.IndexExpr); ok {
		fun = ix.X // an instantiated generic function
	}
	var obj types.Object
	var recv ast.Expr
	switch f := fun.(type) {
	case *ast.Ident:
		obj = info.Uses[f]
	case *ast.SelectorExpr:
		if sel := info.Selections[f]; sel != nil {
			if sel.Kind() != types.MethodVal {
				return false
			}
			obj, recv = sel.Obj(), f.X
		} else {
			obj = info.Uses[f.Sel]
		}
	}
	fn, ok := obj.(*types.Func)
	if !ok || fn.Pkg() == nil || !spinCallOK(fn) {
		return false
	}
	if recv != nil {
		t := info.TypeOf(recv)
		if _, ptr := t.Underlying().(*types.Pointer); ptr {
			if !a.value(recv) {
				return false
			}
		} else if _, iface := t.Underlying().(*types.Interface); iface || !a.address(recv) {
			return false
		}
	}
	return args()
}

// spinCallOK reports whether fn is one of the operations the checker sees
// (spinCalls), in its standard package or in sthread's mirror of it.
func spinCallOK(fn *types.Func) bool {
	path := fn.Pkg().Path()
	if len(path) > len(sthreadPath)+1 && path[:len(sthreadPath)+1] == sthreadPath+"/" {
		path = path[len(sthreadPath)+1:]
	}
	names, ok := spinCalls[path]
	if !ok {
		return false
	}
	if names == nil {
		return true
	}
	name := fn.Name()
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
		t := sig.Recv().Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		n, ok := t.(*types.Named)
		if !ok {
			return false
		}
		name = n.Origin().Obj().Name() + "." + name
	}
	return names[name]
}
