package report

import (
	"strings"

	"github.com/stdbg/stdbg/model/syncmodel"
)

// This file names the objects of Go operations as the program names them:
// by the expression at the call (mu in mu.Lock(), results in
// results <- v, jobs in for j := range jobs). Go objects are rarely
// globals, so the variable names DWARF gives C programs are not there.
//
// An object reached through one expression only, and an expression that
// reaches one object only, is simply called by it: Mutex.Lock(mu). When
// one expression reaches several objects (from.mu in a transfer between
// two accounts) or one object is reached through several expressions,
// every call shows its expression with the object's generated name beside
// it, Mutex.Lock(from.mu [mutex#2]), so that objects are never confused.

// exprNames prepares the names of the objects of Go operations from the
// expressions at their calls: uses are the (operation, source line) pairs
// of the report's steps and waits.
func (b *builder) exprNames(uses []exprUse) {
	exprs := map[uint64]map[string]bool{} // object -> expressions
	objs := map[string]map[uint64]bool{}  // expression -> objects
	for _, u := range uses {
		x := callExpr(u.op, u.source)
		if x == "" || u.op.Obj == 0 {
			continue
		}
		if exprs[u.op.Obj] == nil {
			exprs[u.op.Obj] = map[string]bool{}
		}
		exprs[u.op.Obj][x] = true
		if objs[x] == nil {
			objs[x] = map[uint64]bool{}
		}
		objs[x][u.op.Obj] = true
	}
	b.ambiguous = map[uint64]bool{}
	for obj, xs := range exprs {
		if _, named := b.syms.Data(obj); named {
			continue // a global: its variable's name says it all
		}
		if len(xs) == 1 {
			for x := range xs {
				if len(objs[x]) == 1 {
					b.names[obj] = x
					continue
				}
				b.ambiguous[obj] = true
			}
			continue
		}
		b.ambiguous[obj] = true
	}
}

// exprUse is one call of a Go operation: the operation and the line of
// source it is on.
type exprUse struct {
	op     syncmodel.Op
	source string
}

// goName names the object of a Go operation at the call being rendered
// (b.expr is its expression, if known).
func (b *builder) goName(obj uint64, family string) string {
	n := b.name(obj, family)
	if b.ambiguous[obj] && b.expr != "" && b.expr != n {
		return b.expr + " [" + n + "]"
	}
	return n
}

// callExpr is the expression that names the object of op in the line of
// source src, "" when it cannot be told.
func callExpr(op syncmodel.Op, src string) string {
	if src == "" || goFamily(op.Kind) == "" || op.Kind == syncmodel.Select || op.Cases != nil {
		return ""
	}
	// A method call: mu.Lock(), wg.Done(), ch.Send(v), range ch.All().
	api := op.API.String()
	if i := strings.LastIndexByte(api, '.'); i >= 0 {
		if j := strings.Index(src, api[i:]+"("); j > 0 {
			return trailingExpr(src[:j])
		}
	}
	// The forms of plain Go.
	kind := op.Kind
	if kind == syncmodel.ChanWake && op.API == syncmodel.APIChanSend {
		kind = syncmodel.ChanSend // the second half of a send
	}
	switch kind {
	case syncmodel.ChanMake:
		if lhs, _, ok := strings.Cut(src, ":="); ok && !strings.Contains(lhs, ",") {
			return trailingExpr(lhs)
		}
		if lhs, rhs, ok := strings.Cut(src, "="); ok && strings.Contains(rhs, "make(") && !strings.Contains(lhs, ",") {
			return trailingExpr(lhs)
		}
	case syncmodel.ChanClose:
		if _, rest, ok := strings.Cut(src, "close("); ok {
			if x := leadingExpr(rest); x != "" && strings.HasPrefix(strings.TrimSpace(rest[len(x):]), ")") {
				return x
			}
		}
	case syncmodel.ChanSend:
		if before, _, ok := strings.Cut(src, "<-"); ok && strings.TrimSpace(before) != "" {
			return trailingExpr(before)
		}
	case syncmodel.ChanRecv, syncmodel.ChanWake:
		if _, after, ok := strings.Cut(src, "<-"); ok {
			return leadingExpr(after)
		}
		if _, after, ok := strings.Cut(src, "range "); ok {
			return leadingExpr(after)
		}
	}
	return ""
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// trailingExpr is the operand expression that ends s ("a.b[i]" of
// "defer a.b[i]"), "" if none.
func trailingExpr(s string) string {
	s = strings.TrimRight(s, " \t")
	i := len(s)
	for i > 0 {
		c := s[i-1]
		switch {
		case isIdent(c) || c == '.':
			i--
		case c == ']':
			depth := 0
			for i > 0 {
				i--
				if s[i] == ']' {
					depth++
				} else if s[i] == '[' {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			if depth != 0 {
				return ""
			}
		default:
			return clean(s[i:])
		}
	}
	return clean(s[i:])
}

// leadingExpr is the operand expression that starts s ("jobs" of
// "jobs {"), "" if none.
func leadingExpr(s string) string {
	s = strings.TrimLeft(s, " \t")
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case isIdent(c) || c == '.':
			i++
		case c == '[':
			depth := 0
			for i < len(s) {
				if s[i] == '[' {
					depth++
				} else if s[i] == ']' {
					depth--
					if depth == 0 {
						break
					}
				}
				i++
			}
			if depth != 0 {
				return ""
			}
			i++
		default:
			return clean(s[:i])
		}
	}
	return clean(s[:i])
}

// clean refuses what is not an operand: empty, a number, a keyword, a
// dangling dot.
func clean(x string) string {
	x = strings.Trim(x, ".")
	if x == "" || x[0] >= '0' && x[0] <= '9' {
		return ""
	}
	switch x {
	case "go", "defer", "return", "range", "select", "case", "for", "if", "func", "var":
		return ""
	}
	return x
}
