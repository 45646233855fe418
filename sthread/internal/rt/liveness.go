package rt

import (
	"fmt"
	"hash/fnv"

	"github.com/stdbg/stdbg/model/wire"
)

// The program's state, for stateful search (Config.State): what the
// program declares with package sthread's State and Prop, and its marks of
// progress, reported with every hand-over.

// declared is a piece of state or a proposition declared by the program.
type declared struct {
	name  string
	state func() any
	prop  func() bool
}

// Declare declares, for the calling goroutine's execution, the piece of
// state name (state not nil) or the proposition name (prop not nil);
// declaring a name again replaces it. It does nothing outside a check.
func Declare(name string, state func() any, prop func() bool) {
	th, ok := Current()
	if !ok {
		return
	}
	ex := th.ex
	for i := range ex.declared {
		d := &ex.declared[i]
		if d.name == name && (d.prop == nil) == (prop == nil) {
			d.state, d.prop = state, prop
			return
		}
	}
	ex.declared = append(ex.declared, declared{name: name, state: state, prop: prop})
}

// Progress marks progress in the transition under way. It does nothing
// outside a check.
func Progress() {
	if th, ok := Current(); ok {
		th.ex.progress = true
	}
}

// stateEvent describes the program state at the end of a transition.
func (ex *Execution) stateEvent() wire.State {
	h := fnv.New64a()
	st := wire.State{Progress: ex.progress}
	ex.progress = false
	for _, d := range ex.declared {
		if d.prop != nil {
			v := int64(0)
			if d.prop() {
				v = 1
			}
			st.Props = append(st.Props, wire.Prop{Name: d.name, Value: v})
			fmt.Fprintf(h, "p%s=%d;", d.name, v)
			continue
		}
		fmt.Fprintf(h, "s%s=%#v;", d.name, d.state())
	}
	st.Hash = h.Sum64()
	return st
}
