package goinstr

import (
	"fmt"
	"go/ast"
	"go/scanner"
	"go/token"
	"go/types"
	goversion "go/version"
	"strings"
)

// fileRewriter rewrites one file.
type fileRewriter struct {
	fset   *token.FileSet
	file   *ast.File
	tf     *token.File
	src    []byte
	info   *types.Info
	types  *types.Package // the file's package
	isTest bool           // a _test.go file
	isMain bool           // package main of a program
	ed     edits
	n      int             // counter for fresh names
	used   map[string]bool // import paths whose uses were rewritten
	// imported are the sthread packages the rewritten file uses.
	imported map[string]bool
	warn     func(pos token.Pos, format string, args ...any)
	// notInstrumented tells of a construct left as written, whose
	// behaviour a search does not explore (Result.Unmodelled).
	notInstrumented func(pos token.Pos, format string, args ...any)
	changed         bool
	dir             string // the directory warnings are relative to
	lang            string // the language version of the file's module, go1.N
}

func (r *fileRewriter) off(p token.Pos) int { return r.tf.Offset(p) }

func (r *fileRewriter) text(n ast.Node) string {
	return string(r.src[r.off(n.Pos()):r.off(n.End())])
}

func (r *fileRewriter) line(p token.Pos) int { return r.tf.Line(p) }

func (r *fileRewriter) fresh() string {
	r.n++
	return fmt.Sprintf("stdbgV%d", r.n)
}

func (r *fileRewriter) replace(from, to token.Pos, text string) {
	r.ed.replace(r.off(from), r.off(to), text)
	r.changed = true
}

func (r *fileRewriter) insert(at token.Pos, text string, prio int) {
	r.ed.insert(r.off(at), text, prio)
	r.changed = true
}

// isChan reports whether e is a channel.
func (r *fileRewriter) isChan(e ast.Expr) bool {
	t := r.info.TypeOf(e)
	if t == nil {
		return false
	}
	_, ok := t.Underlying().(*types.Chan)
	return ok
}

// builtin returns the name of the builtin function e names, or "".
func (r *fileRewriter) builtin(e ast.Expr) string {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return ""
	}
	if b, ok := r.info.Uses[id].(*types.Builtin); ok {
		return b.Name()
	}
	return ""
}

// rewrite collects the edits of the file and returns the rewritten source,
// or nil if nothing changed.
func (r *fileRewriter) rewrite() ([]byte, error) {
	r.used = map[string]bool{}
	r.walk(r.file, map[ast.Node]bool{})
	if !r.changed {
		return nil, nil
	}
	r.imports()
	return r.ed.apply(r.src)
}

// walk collects the edits of the tree under root; skip holds the nodes
// already handled by an enclosing construct.
func (r *fileRewriter) walk(root ast.Node, skip map[ast.Node]bool) {
	depth := 0
	var stack []ast.Node
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			depth--
			return true
		}
		stack = append(stack, n)
		depth++
		if skip[n] {
			return true
		}
		switch n := n.(type) {
		case *ast.FuncDecl:
			r.funcDecl(n)
		case *ast.GoStmt:
			r.goStmt(n, depth)
			skip[n.Call] = true
		case *ast.SelectStmt:
			r.selectStmt(n, skip)
		case *ast.SendStmt:
			r.send(n, depth)
		case *ast.AssignStmt:
			if len(n.Lhs) == 2 && len(n.Rhs) == 1 {
				if u, ok := ast.Unparen(n.Rhs[0]).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
					r.recv(u, "ChanRecv2", depth+2)
					skip[u] = true
				}
			}
		case *ast.ValueSpec:
			if len(n.Names) == 2 && len(n.Values) == 1 {
				if u, ok := ast.Unparen(n.Values[0]).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
					r.recv(u, "ChanRecv2", depth+2)
					skip[u] = true
				}
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				r.recv(n, "ChanRecv", depth)
			}
		case *ast.ForStmt:
			r.spinLoop(n, stack)
		case *ast.RangeStmt:
			if r.isChan(n.X) {
				r.rangeChan(n, depth)
			} else if m := coreMap(r.info.TypeOf(n.X)); m != nil {
				r.rangeMap(n, m, depth)
			}
		case *ast.CallExpr:
			r.testCall(n, depth)
			switch r.builtin(n.Fun) {
			case "close":
				r.replace(n.Fun.Pos(), n.Fun.End(), r.qual(langPath, "ChanClose"))
			case "len":
				if len(n.Args) == 1 && r.isChan(n.Args[0]) {
					r.replace(n.Fun.Pos(), n.Fun.End(), r.qual(langPath, "ChanLen"))
				}
			}
		case *ast.SelectorExpr:
			r.selector(n)
		}
		return true
	})
}

// rangeChan rewrites a range loop over a channel into a three-clause loop
// whose init receives the first value and whose post receives the next:
//
//	for v := range X {   ->   for n, v, ok := lang.ChanRangeLoop(X); ok; v, ok = n(v) {
//	for range X {        ->   for n, v, ok := lang.ChanRangeLoop(X); ok; v, ok = n(v) {
//	for x.f = range X {  ->   for n, v, ok := lang.ChanRangeLoop(X); ok; v, ok = n(v) { x.f = v;
//
// Any language version compiles it (a range over a function's iterator
// needs Go 1.23), and the loop's init declares v, so that v is one
// variable for all iterations or one per iteration as the module's
// language version says of range loops. An assigned expression is moved
// to the body's start when it is simple (on one line, without calls or
// receives); else it keeps its place, behind its address
// (lang.ChanRangeSet); a map element, which has none, keeps a range over
// lang.ChanRange(X).
func (r *fileRewriter) rangeChan(n *ast.RangeStmt, depth int) {
	r.n++
	next, ok := fmt.Sprintf("stdbgNext%d", r.n), fmt.Sprintf("stdbgOK%d", r.n)
	// keep gives back the newlines of the replaced text.
	keep := func(from, to token.Pos) string {
		return strings.Repeat("\n", strings.Count(string(r.src[r.off(from):r.off(to)]), "\n"))
	}
	key := n.Key
	v, assign := fmt.Sprintf("stdbgV%d", r.n), ""
	switch {
	case key == nil:
	case n.Tok == token.DEFINE:
		if id, isIdent := key.(*ast.Ident); !isIdent || id.Name != "_" {
			v = r.text(key)
		}
	case r.simple(key):
		assign = fmt.Sprintf(" %s = %s;", r.text(key), v)
	case r.isMapElem(key):
		r.insert(n.X.Pos(), r.qual(langPath, "ChanRange")+"(", depth)
		r.insert(n.X.End(), ")", -depth)
		if goversion.Compare(r.lang, "go1.23") < 0 {
			r.warn(key.Pos(), "a range over a channel into a map element needs go 1.23 once instrumented (it ranges over a function's iterator)")
		}
		return
	default:
		r.insert(key.Pos(), fmt.Sprintf("%s, %s := %s(func() any { return &", next, ok, r.qual(langPath, "ChanRangeSet")), depth)
		r.replace(key.End(), n.X.Pos(), "}, "+keep(key.End(), n.X.Pos()))
		r.insert(n.X.End(), fmt.Sprintf("); %s; %s = %s()", ok, ok, next), -depth)
		return
	}
	from := n.Range
	if key != nil {
		from = key.Pos()
	}
	r.replace(from, n.X.Pos(), fmt.Sprintf("%s, %s, %s := %s(%s", next, v, ok, r.qual(langPath, "ChanRangeLoop"), keep(from, n.X.Pos())))
	r.insert(n.X.End(), fmt.Sprintf("); %s; %s, %s = %s(%s)", ok, v, ok, next, v), -depth)
	if assign != "" {
		r.insert(n.Body.Lbrace+1, assign, depth)
	}
}

// simple reports whether expression e is on one line and holds nothing the
// rewriting would change: no call, receive, function literal or name from
// another package.
func (r *fileRewriter) simple(e ast.Expr) bool {
	if r.line(e.Pos()) != r.line(e.End()) {
		return false
	}
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr, *ast.FuncLit:
			ok = false
		case *ast.UnaryExpr:
			ok = ok && n.Op != token.ARROW
		case *ast.SelectorExpr:
			if id, isIdent := n.X.(*ast.Ident); isIdent {
				if _, isPkg := r.info.Uses[id].(*types.PkgName); isPkg {
					ok = false
				}
			}
		}
		return ok
	})
	return ok
}

// isMapElem reports whether e is an element of a map, m[k].
func (r *fileRewriter) isMapElem(e ast.Expr) bool {
	ix, ok := ast.Unparen(e).(*ast.IndexExpr)
	if !ok {
		return false
	}
	t := r.info.TypeOf(ix.X)
	if t == nil {
		return false
	}
	_, isMap := t.Underlying().(*types.Map)
	return isMap
}

// testMethods are the methods of testing.T that go test refuses once the
// test is over.
var testMethods = map[string]bool{
	"Log": true, "Logf": true, "Error": true, "Errorf": true, "Fatal": true, "Fatalf": true,
	"Fail": true, "FailNow": true, "Skip": true, "Skipf": true, "SkipNow": true,
}

// testRunners are the methods of testing.T that run code on goroutines of
// package testing, and the functions of package lang that stand for them
// (a subtest, the test's cleanups; Parallel makes the test wait for
// others): under a check, what they run must run on the checked
// goroutines, in the execution. Cleanup is testing.TB's too, and so is
// Context, whose context package testing cancels as the test ends: under a
// check, the execution's test ends.
var testRunners = map[string]string{"Run": "Run", "Parallel": "Parallel", "Cleanup": "Cleanup", "Context": "Context"}

// testCall rewrites t.M(args), t a *testing.T or a testing.TB and M a
// method that logs, fails or skips, into lang.TestCall(t, "M").M(args):
// the goroutines of a test may not call them after it returned.
func (r *fileRewriter) testCall(c *ast.CallExpr, depth int) {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return
	}
	t := r.info.TypeOf(sel.X)
	if t == nil || (t.String() != "*testing.T" && t.String() != "testing.TB") {
		return
	}
	if fn, ok := testRunners[sel.Sel.Name]; ok && (t.String() == "*testing.T" || fn == "Cleanup" || fn == "Context") {
		// t.Run(name, f) -> lang.Run(t, name, f); t.Parallel() ->
		// lang.Parallel(t); t.Context() -> lang.Context(t).
		r.insert(sel.X.Pos(), r.qual(langPath, fn)+"(", depth)
		sep := ", "
		if len(c.Args) == 0 {
			sep = ""
		}
		r.replace(sel.X.End(), c.Lparen+1, sep+r.newlines(sel.X.End(), c.Lparen))
		return
	}
	if !testMethods[sel.Sel.Name] {
		return
	}
	r.insert(sel.X.Pos(), r.qual(langPath, "TestCall")+"(", depth)
	r.insert(sel.X.End(), fmt.Sprintf(", %q)", sel.Sel.Name), -depth)
}

// recv rewrites the receive <-X.
func (r *fileRewriter) recv(u *ast.UnaryExpr, fn string, depth int) {
	r.replace(u.OpPos, u.X.Pos(), r.qual(langPath, fn)+"(")
	r.insert(u.X.End(), ")", -depth)
}

// send rewrites the statement c <- v into lang.SendTo(c).Send(v): the
// value is passed as the channel's element type, so that it converts as
// the send converts it (a *T sent on a chan I).
func (r *fileRewriter) send(n *ast.SendStmt, depth int) {
	r.insert(n.Chan.Pos(), r.qual(langPath, "SendTo")+"(", depth)
	r.replace(n.Chan.End(), n.Value.Pos(), ").Send("+r.newlines(n.Chan.End(), n.Value.Pos()))
	r.insert(n.Value.End(), ")", -depth)
}

// newlines returns the newlines of the source between from and to, which
// a replacement of that text gives back so that every line keeps its
// number.
func (r *fileRewriter) newlines(from, to token.Pos) string {
	return strings.Repeat("\n", strings.Count(string(r.src[r.off(from):r.off(to)]), "\n"))
}

// funcDecl wraps the body of a test function in CheckTest and the body of
// main in Run.
func (r *fileRewriter) funcDecl(fd *ast.FuncDecl) {
	if fd.Body == nil || fd.Recv != nil || fd.Type.TypeParams != nil {
		return
	}
	if r.isMain && fd.Name.Name == "main" && len(fd.Type.Params.List) == 0 {
		r.insert(fd.Body.Lbrace+1, " "+r.qual(sthreadPath, "Run")+"(func() {", 0)
		r.insert(fd.Body.Rbrace, "});", 0)
		return
	}
	if !r.isTest || !strings.HasPrefix(fd.Name.Name, "Test") || fd.Name.Name == "TestMain" {
		return
	}
	ps := fd.Type.Params.List
	if len(ps) != 1 || len(ps[0].Names) > 1 {
		return
	}
	t := r.info.TypeOf(ps[0].Type)
	if t == nil || t.String() != "*testing.T" {
		return
	}
	name := ""
	if len(ps[0].Names) == 1 && ps[0].Names[0].Name != "_" {
		name = ps[0].Names[0].Name
	} else if len(ps[0].Names) == 1 {
		name = "stdbgT"
		r.replace(ps[0].Names[0].Pos(), ps[0].Names[0].End(), name)
	} else {
		name = "stdbgT"
		r.insert(ps[0].Type.Pos(), name+" ", 0)
	}
	r.insert(fd.Body.Lbrace+1, " "+r.qual(langPath, "CheckTest")+"("+name+", func() {", 0)
	r.insert(fd.Body.Rbrace, "});", 0)
}

// goStmt rewrites go f(args) into a call of sthread's Go. The function
// value and the arguments are evaluated by the calling goroutine, as the go
// statement does.
func (r *fileRewriter) goStmt(g *ast.GoStmt, depth int) {
	call := g.Call
	fun := ast.Unparen(call.Fun)
	goEnd := g.Go + token.Pos(len("go"))
	if lit, ok := fun.(*ast.FuncLit); ok && len(call.Args) == 0 && lit.Type.Results == nil &&
		(lit.Type.Params == nil || len(lit.Type.Params.List) == 0) {
		// go func() { ... }()
		r.replace(g.Go, goEnd, r.qual(sthreadPath, "Go")+"(")
		r.replace(call.Lparen, call.Rparen+1, ")")
		return
	}
	b := r.builtin(fun)
	hoistFun := b == "" && !r.isFuncName(fun)
	type arg struct {
		hoist bool
		name  string // the hoisted name, or the constant's text
		nilv  bool
	}
	args := make([]arg, len(call.Args))
	hoisted := hoistFun
	for i, a := range call.Args {
		tv := r.info.Types[a]
		switch {
		case tv.IsNil():
			args[i] = arg{name: "nil", nilv: true}
		case tv.Value != nil:
			args[i] = arg{name: types.ExprString(a)}
		default:
			args[i] = arg{hoist: true, name: r.fresh()}
			hoisted = true
		}
	}
	funName := b
	switch {
	case b == "close":
		funName = r.qual(langPath, "ChanClose")
	case b == "len" && len(call.Args) == 1 && r.isChan(call.Args[0]):
		funName = r.qual(langPath, "ChanLen")
	case b == "":
		funName = types.ExprString(fun)
	}
	if !hoisted {
		// Nothing to evaluate first: go f(1) is Go(func() { f(1) }).
		r.replace(g.Go, goEnd, r.qual(sthreadPath, "Go")+"(func() {")
		if b != "" {
			r.replace(call.Fun.Pos(), call.Fun.End(), funName)
		}
		r.insert(call.End(), " })", -depth)
		return
	}
	var lhs, params []string
	if hoistFun {
		funName = r.fresh()
		lhs = append(lhs, funName)
	}
	for i, a := range args {
		switch {
		case a.hoist:
			lhs = append(lhs, a.name)
		default:
			lhs = append(lhs, "_")
			if a.nilv {
				r.replace(call.Args[i].Pos(), call.Args[i].End(), "0")
			}
		}
		params = append(params, a.name)
	}
	// The values are bound in a function called on the go statement's
	// line, so that the Go call, and the trace, shows that line.
	r.replace(g.Go, fun.Pos(), r.qual(sthreadPath, "Go")+"(func() func() { "+strings.Join(lhs, ", ")+" := ")
	if call.Fun != fun {
		// Parentheses around the function.
		r.replace(call.Fun.Pos(), fun.Pos(), "")
		r.replace(fun.End(), call.Fun.End(), "")
	}
	if !hoistFun {
		r.replace(fun.Pos(), fun.End(), "")
		r.replace(call.Lparen, call.Lparen+1, "")
	} else if len(call.Args) > 0 {
		r.replace(call.Lparen, call.Lparen+1, ", ")
	} else {
		r.replace(call.Lparen, call.Lparen+1, "")
	}
	if len(call.Args) > 0 {
		last := call.Args[len(call.Args)-1].End()
		if call.Ellipsis.IsValid() {
			r.replace(call.Ellipsis, call.Ellipsis+3, "")
			last = call.Ellipsis + 3
		}
		if i := strings.IndexByte(string(r.src[r.off(last):r.off(call.Rparen)]), ','); i >= 0 {
			r.replace(last+token.Pos(i), last+token.Pos(i)+1, "")
		}
	}
	ell := ""
	if call.Ellipsis.IsValid() {
		ell = "..."
	}
	r.replace(call.Rparen, call.Rparen+1, "; return func() { "+funName+"("+strings.Join(params, ", ")+ell+") } }())")
}

// isFuncName reports whether e names a function declared at package level
// (possibly generic): evaluating it has no effect, and a generic one cannot
// be a value.
func (r *fileRewriter) isFuncName(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		_, ok := r.info.Uses[x].(*types.Func)
		return ok
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			if _, ok := r.info.Uses[id].(*types.PkgName); ok {
				return true
			}
		}
	}
	return false
}

// selectStmt rewrites a select statement into a switch on SelectOf. The
// channels and values of the cases are evaluated on the select's line, on
// entering the statement, as Go does.
func (r *fileRewriter) selectStmt(s *ast.SelectStmt, skip map[ast.Node]bool) {
	hasDefault := false
	var names, makers []string
	type header struct {
		cc   *ast.CommClause
		text string
	}
	var heads []header
	// bail leaves the select as written: its cases' own sends and
	// receives must stay Go's (a case must be a send or a receive), while
	// what they contain (a function literal's body) is still rewritten.
	bail := func(pos token.Pos, msg string) {
		r.notInstrumented(pos, "a select: %s", msg)
		for _, st := range s.Body.List {
			switch c := st.(*ast.CommClause).Comm.(type) {
			case *ast.SendStmt:
				skip[c] = true
			case *ast.ExprStmt:
				skip[ast.Unparen(c.X)] = true
			case *ast.AssignStmt:
				skip[ast.Unparen(c.Rhs[0])] = true
			}
		}
	}
	for _, st := range s.Body.List {
		cc := st.(*ast.CommClause)
		if cc.Comm == nil {
			hasDefault = true
			continue
		}
		idx := len(names)
		name := r.fresh()
		var ch, val ast.Expr
		head := fmt.Sprintf("case %d:", idx)
		switch c := cc.Comm.(type) {
		case *ast.SendStmt:
			ch, val = c.Chan, c.Value
		case *ast.ExprStmt:
			ch = ast.Unparen(c.X).(*ast.UnaryExpr).X
		case *ast.AssignStmt:
			ch = ast.Unparen(c.Rhs[0]).(*ast.UnaryExpr).X
			lhs := make([]string, len(c.Lhs))
			for i, e := range c.Lhs {
				text, err := oneLine(r.text(e))
				if err != nil {
					bail(e.Pos(), err.Error())
					return
				}
				lhs[i] = text
			}
			get := ".Val()"
			if len(lhs) == 2 {
				get = ".Value()"
			}
			head += fmt.Sprintf(" %s %s %s%s;", strings.Join(lhs, ", "), c.Tok, name, get)
		}
		var moved [2]string
		for i, e := range []ast.Expr{ch, val} {
			if e == nil {
				continue
			}
			if !r.movable(e) {
				bail(e.Pos(), "a case's expression holds a receive")
				return
			}
			text, err := oneLine(r.moved(e))
			if err != nil {
				bail(e.Pos(), err.Error())
				return
			}
			moved[i] = text
		}
		maker := fmt.Sprintf("%s(%s)", r.qual(langPath, "RecvCaseOf"), moved[0])
		if val != nil {
			maker = fmt.Sprintf("%s(%s).Case(%s)", r.qual(langPath, "SendTo"), moved[0], moved[1])
		}
		names = append(names, name)
		makers = append(makers, maker)
		heads = append(heads, header{cc, head})
	}
	sel := fmt.Sprintf("%s(%v", r.qual(langPath, "SelectOf"), hasDefault)
	for _, n := range names {
		sel += ", " + n
	}
	sel += ")"
	sw := "switch " + sel
	if len(names) > 0 {
		sw = fmt.Sprintf("switch %s := %s; %s", strings.Join(names, ", "), strings.Join(makers, ", "), sel)
	}
	r.replace(s.Select, s.Select+token.Pos(len("select")), sw)
	for _, h := range heads {
		// A case that spans lines gives them back after its new text.
		r.replace(h.cc.Case, h.cc.Colon+1, h.text+r.newlines(h.cc.Case, h.cc.Colon))
		// The case's expressions were moved: nothing inside is rewritten.
		ast.Inspect(h.cc.Comm, func(n ast.Node) bool {
			if n != nil {
				skip[n] = true
			}
			return true
		})
	}
	if !hasDefault {
		r.insert(s.Body.Rbrace, "default: panic(\"unreachable\");", 0)
	}
}

// moved returns the text of expression e, moved elsewhere, rewritten as it
// would be in place: the replaced names of the standard library, and the
// bodies of the function literals it holds (movable has excluded the
// constructs that cannot move).
func (r *fileRewriter) moved(e ast.Expr) string {
	base := r.off(e.Pos())
	saved := r.ed
	r.ed = edits{}
	r.walk(e, map[ast.Node]bool{})
	sub := r.ed
	r.ed = saved
	for i := range sub.list {
		sub.list[i].start -= base
		sub.list[i].end -= base
	}
	out, err := sub.apply([]byte(r.text(e)))
	if err != nil {
		return r.text(e)
	}
	return string(out)
}

// movable reports whether a case expression can be moved to the select's
// line: no receive and no close or len outside a function literal (their
// rewriting is the case's own). One that spans lines is joined into one
// (oneLine).
func (r *fileRewriter) movable(e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // rewritten as a whole by moved
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				ok = false
			}
		case *ast.CallExpr:
			if b := r.builtin(n.Fun); b == "close" || b == "len" {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// oneLine joins the lines of expression text src into one, to be moved to
// a select's line: each run of spaces, newlines and comments between two
// tokens becomes one space, and a newline where Go inserts a semicolon
// (between the statements of a function literal) a semicolon. One that
// holds a raw string of several lines cannot be joined.
func oneLine(src string) (string, error) {
	if !strings.Contains(src, "\n") {
		return src, nil
	}
	var sc scanner.Scanner
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	failed := false
	sc.Init(file, []byte(src), func(token.Position, string) { failed = true }, scanner.ScanComments)
	var out strings.Builder
	end := 0
	for {
		pos, tok, lit := sc.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.COMMENT {
			continue
		}
		off := file.Offset(pos)
		n := len(lit)
		if lit == "" {
			n = len(tok.String())
		}
		if tok == token.SEMICOLON && lit == "\n" {
			if off >= len(src) || strings.TrimSpace(src[off:]) == "" {
				break // the end of the expression
			}
			out.WriteByte(';')
			end = off
			continue
		}
		text := src[off:min(off+n, len(src))]
		if strings.ContainsAny(text, "\r\n") {
			return "", fmt.Errorf("a case's expression holds a raw string of several lines")
		}
		if off > end && out.Len() > 0 {
			out.WriteByte(' ')
		}
		out.WriteString(text)
		end = off + n
	}
	if failed {
		return "", fmt.Errorf("a case's expression could not be read")
	}
	return out.String(), nil
}
