package sthread

import (
	"fmt"

	"github.com/stdbg/stdbg/engine/ltl"
	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// State declares part of the program's state under the given name, for
// stateful search (Visited, Livelock, LTL; stdbg find --visited): at every
// scheduling point the checker calls f and hashes the value it returns
// (printed with %#v) together with the goroutines' positions and the
// states of the sthread objects. Two scheduling points whose declared
// states, positions and objects are equal are taken to be the same state,
// so declare everything the goroutines share that the future depends on,
// as values: pointers print as addresses, which differ between executions.
// Values in channel buffers are not hashed: declare them too if they
// matter.
//
// Call State from the checked function (each execution declares its own);
// declaring a name again replaces it. f runs while every goroutine is
// paused and must not use sthread objects. Outside a check State does
// nothing.
func State(name string, f func() any) {
	if f != nil {
		rt.Declare(name, f, nil)
	}
}

// Prop declares the proposition name for LTL properties (the LTL option,
// stdbg find --ltl): its value at each scheduling point is f's result. Like
// State, f runs while every goroutine is paused and must not use sthread
// objects, and Prop does nothing outside a check. A proposition is part of
// the state.
func Prop(name string, f func() bool) {
	if f != nil {
		rt.Declare(name, nil, f)
	}
}

// Progress marks progress: a livelock (the Livelock option, stdbg find
// --livelock) is a cycle of states in which no goroutine calls Progress.
// Outside a check it does nothing.
func Progress() { rt.Progress() }

// Visited makes the search stateful: an execution that reaches a state
// already explored stops there, so that loops that come back to where they
// were (a goroutine spinning with Yield until a flag is set) end. The state
// is the goroutines' positions, the sthread objects and what the program
// declares with State and Prop. Stats.Visited counts the distinct states.
func Visited() Option { return func(c *config) { c.visited = true } }

// Livelock reports, once the state graph is explored, a reachable cycle of
// states in which no goroutine calls Progress and every goroutine enabled
// throughout the cycle runs in it (weak fairness), as a bug of kind
// search.Livelock whose Schedule is a lasso, "stem (cycle)*". It implies
// Visited.
func Livelock() Option { return func(c *config) { c.livelock = true } }

// LTL checks formula (package ltl: atoms declared with Prop, ! && || ->,
// X F G U R) on every weakly fair run of the program, and reports a
// violation as a lasso with the propositions' values at each step. It
// implies Visited; a formula that does not parse fails the check.
func LTL(formula string) Option { return func(c *config) { c.ltl = formula } }

func (c *config) stateful() bool { return c.visited || c.livelock || c.ltl != "" }

// formula parses the LTL option, nil if there is none.
func (c *config) formula() (*ltl.Formula, error) {
	if c.ltl == "" {
		return nil, nil
	}
	f, err := ltl.Parse(c.ltl)
	if err != nil {
		return nil, fmt.Errorf("LTL formula %q: %w", c.ltl, err)
	}
	return f, nil
}
