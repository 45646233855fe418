package lang

import "github.com/stdbg/stdbg/sthread/internal/rt"

// A Var is a package-level variable of an instrumented package: its name,
// where it is declared (file:line) and its address.
type Var struct {
	Name, Pos string
	Addr      any
}

// PackageVars registers the package-level variables of a package of
// module (its module path). stdbg's instrumentation of plain Go calls it
// from an init function it adds to every package it rewrites. The search
// inside the target, which runs execution after execution of a test or
// program in one process, takes a snapshot of the variables (and of what
// they point to) when its first execution begins, and puts them back
// before each later one, so that each execution starts as it would in a
// fresh process; what it cannot put back (a closure's captured variables,
// another package's value changed in place) makes stdbg search again with
// a fresh process per execution, naming the variable. Outside a search it
// does nothing more than remember them.
func PackageVars(module string, vars []Var) {
	vs := make([]rt.Var, len(vars))
	for i, v := range vars {
		vs[i] = rt.Var{Name: v.Name, Pos: v.Pos, Addr: v.Addr}
	}
	rt.RegisterVars(module, vs)
}
