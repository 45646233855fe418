package goinstr

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
)

// rangeMap rewrites a range loop over a map into a three-clause loop over
// lang.MapRangeLoop, which makes the order of the loop part of what a
// schedule determines:
//
//	for k, v := range X {   ->   for n, k, v, ok := lang.MapRangeLoop(X); ok; k, v, ok = n() {
//	for k = range X {       ->   for n, k1, _, ok := lang.MapRangeLoop(X); ok; k1, _, ok = n() { k = k1;
//
// as rangeChan does for channels. A loop that uses neither key nor value
// is left alone (its order does not matter), and so is one whose keys have
// no order that repeats in every execution (pointers, channels,
// interfaces) or that assigns to an expression too complex to move, with a
// warning: the search does not fix their order.
func (r *fileRewriter) rangeMap(n *ast.RangeStmt, m *types.Map, depth int) {
	blank := func(e ast.Expr) bool {
		id, ok := e.(*ast.Ident)
		return e == nil || ok && id.Name == "_"
	}
	if blank(n.Key) && blank(n.Value) {
		return
	}
	if !orderedKey(m.Key()) {
		r.notInstrumented(n.For, "the order of a range over a map keyed by %s (keys holding pointers, channels or interfaces have no order that repeats in every execution)",
			types.TypeString(m.Key(), r.qualifier))
		return
	}
	r.n++
	next, ok := fmt.Sprintf("stdbgNext%d", r.n), fmt.Sprintf("stdbgOK%d", r.n)
	vars := [2]string{"_", "_"}
	assign := ""
	for i, e := range []ast.Expr{n.Key, n.Value} {
		switch {
		case blank(e):
		case n.Tok == token.DEFINE:
			vars[i] = r.text(e)
		case r.simple(e):
			vars[i] = fmt.Sprintf("stdbgV%d_%d", r.n, i)
			assign += fmt.Sprintf(" %s = %s;", r.text(e), vars[i])
		default:
			r.notInstrumented(e.Pos(), "the order of a range over a map that assigns to an expression over lines or with calls")
			return
		}
	}
	r.replace(n.Key.Pos(), n.X.Pos(), fmt.Sprintf("%s, %s, %s, %s := %s(%s", next, vars[0], vars[1], ok,
		r.qual(langPath, "MapRangeLoop"), r.newlines(n.Key.Pos(), n.X.Pos())))
	r.insert(n.X.End(), fmt.Sprintf("); %s; %s, %s, %s = %s()", ok, vars[0], vars[1], ok, next), -depth)
	if assign != "" {
		r.insert(n.Body.Lbrace+1, assign, depth)
	}
}

// qualifier names the packages of types in messages: by their name,
// nothing for the file's own.
func (r *fileRewriter) qualifier(p *types.Package) string {
	if p == r.types {
		return ""
	}
	return p.Name()
}

// coreMap returns the map type that a range over a value of type t ranges
// over: t's underlying type, or the one map type a type parameter's
// constraint allows; nil if there is none.
func coreMap(t types.Type) *types.Map {
	if t == nil {
		return nil
	}
	if tp, ok := t.(*types.TypeParam); ok {
		iface, ok := tp.Constraint().Underlying().(*types.Interface)
		if !ok {
			return nil
		}
		var core *types.Map
		for i := range iface.NumEmbeddeds() {
			var terms []types.Type
			switch e := iface.EmbeddedType(i).(type) {
			case *types.Union:
				for j := range e.Len() {
					terms = append(terms, e.Term(j).Type())
				}
			default:
				terms = append(terms, e)
			}
			for _, term := range terms {
				m, ok := term.Underlying().(*types.Map)
				if !ok || core != nil && !types.Identical(core, m) {
					return nil
				}
				core = m
			}
		}
		return core
	}
	m, _ := t.Underlying().(*types.Map)
	return m
}

// orderedKey reports whether the keys of type t have an order that
// repeats in every execution (lang.MapRangeLoop orders them): booleans,
// numbers, strings, and arrays and structs of them; a type parameter is
// left to the loop, which keeps Go's order for its other instances.
func orderedKey(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&(types.IsBoolean|types.IsNumeric|types.IsString) != 0
	case *types.Array:
		return orderedKey(u.Elem())
	case *types.Struct:
		for i := range u.NumFields() {
			if !orderedKey(u.Field(i).Type()) {
				return false
			}
		}
		return true
	}
	_, isParam := t.(*types.TypeParam)
	return isParam
}
