package ltl

import (
	"slices"
	"sort"
	"strings"
)

// Automaton is a generalized Büchi automaton with labelled states, as the
// tableau construction produces it: a run is a sequence of states q0 q1 ...
// where q0 is initial, each q(i+1) is a successor of q(i), and the i-th
// letter (the propositions' values at the i-th program state) satisfies
// the label of q(i). It accepts when it visits every acceptance set
// infinitely often.
type Automaton struct {
	States []State
	// Accept are the acceptance sets (indices into States), one per
	// until subformula; none means every infinite run accepts.
	Accept [][]int
}

// State is a state of an Automaton.
type State struct {
	Initial bool
	// Pos and Neg are the propositions that must be true and false.
	Pos, Neg []string
	// Never is set when the label contains false: no letter satisfies it.
	Never bool
	// Succ are the successor states.
	Succ []int
}

// Matches reports whether the letter value satisfies the state's label.
func (s *State) Matches(value func(string) bool) bool {
	if s.Never {
		return false
	}
	for _, p := range s.Pos {
		if !value(p) {
			return false
		}
	}
	for _, p := range s.Neg {
		if value(p) {
			return false
		}
	}
	return true
}

// tnode is a node of the tableau construction.
type tnode struct {
	incoming map[int]bool // -1 stands for the initial pseudo-node
	new      []*Formula
	old      map[string]*Formula
	next     map[string]*Formula
}

func (n *tnode) clone() *tnode {
	c := &tnode{incoming: map[int]bool{}, old: map[string]*Formula{}, next: map[string]*Formula{}}
	for k := range n.incoming {
		c.incoming[k] = true
	}
	c.new = slices.Clone(n.new)
	for k, v := range n.old {
		c.old[k] = v
	}
	for k, v := range n.next {
		c.next[k] = v
	}
	return c
}

func setKey(m map[string]*Formula) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, "\x00")
}

// Automaton translates f into a generalized Büchi automaton accepting
// exactly the runs that satisfy f.
func (f *Formula) Automaton() *Automaton {
	g := nnf(f, false)
	var nodes []*tnode
	var expand func(n *tnode)
	expand = func(n *tnode) {
		if len(n.new) == 0 {
			ok, nk := setKey(n.old), setKey(n.next)
			for _, m := range nodes {
				if setKey(m.old) == ok && setKey(m.next) == nk {
					for k := range n.incoming {
						m.incoming[k] = true
					}
					return
				}
			}
			id := len(nodes)
			nodes = append(nodes, n)
			succ := &tnode{incoming: map[int]bool{id: true}, old: map[string]*Formula{}, next: map[string]*Formula{}}
			for _, x := range n.next {
				succ.new = append(succ.new, x)
			}
			sort.Slice(succ.new, func(i, j int) bool { return succ.new[i].String() < succ.new[j].String() })
			expand(succ)
			return
		}
		eta := n.new[len(n.new)-1]
		n.new = n.new[:len(n.new)-1]
		key := eta.String()
		if _, done := n.old[key]; done {
			expand(n)
			return
		}
		switch eta.Op {
		case True, False, Atom, Not:
			if eta.Op == False || n.old[negation(eta).String()] != nil {
				return // contradiction: drop the node
			}
			n.old[key] = eta
			expand(n)
		case And:
			n.old[key] = eta
			n.new = append(n.new, eta.L, eta.R)
			expand(n)
		case Next:
			n.old[key] = eta
			n.next[eta.L.String()] = eta.L
			expand(n)
		case Or, Until, Release:
			n1, n2 := n.clone(), n.clone()
			n1.old[key], n2.old[key] = eta, eta
			switch eta.Op {
			case Or:
				n1.new = append(n1.new, eta.L)
				n2.new = append(n2.new, eta.R)
			case Until:
				n1.new = append(n1.new, eta.L)
				n1.next[key] = eta
				n2.new = append(n2.new, eta.R)
			case Release:
				n1.new = append(n1.new, eta.R)
				n1.next[key] = eta
				n2.new = append(n2.new, eta.L, eta.R)
			}
			expand(n1)
			expand(n2)
		}
	}
	expand(&tnode{incoming: map[int]bool{-1: true}, new: []*Formula{g}, old: map[string]*Formula{}, next: map[string]*Formula{}})

	a := &Automaton{States: make([]State, len(nodes))}
	for i, n := range nodes {
		s := &a.States[i]
		s.Initial = n.incoming[-1]
		for _, x := range n.old {
			switch {
			case x.Op == Atom:
				s.Pos = append(s.Pos, x.Name)
			case x.Op == Not && x.L.Op == Atom:
				s.Neg = append(s.Neg, x.L.Name)
			case x.Op == False:
				s.Never = true
			}
		}
		sort.Strings(s.Pos)
		sort.Strings(s.Neg)
		for j, m := range nodes {
			if m.incoming[i] {
				s.Succ = append(s.Succ, j)
			}
		}
	}
	// One acceptance set per until subformula a U b: the states where b
	// holds or a U b is not promised.
	untils := map[string]*Formula{}
	var walk func(*Formula)
	walk = func(x *Formula) {
		if x == nil {
			return
		}
		if x.Op == Until {
			untils[x.String()] = x
		}
		walk(x.L)
		walk(x.R)
	}
	walk(g)
	keys := make([]string, 0, len(untils))
	for k := range untils {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		u := untils[k]
		var set []int
		for i, n := range nodes {
			if n.old[u.R.String()] != nil || n.old[k] == nil {
				set = append(set, i)
			}
		}
		a.Accept = append(a.Accept, set)
	}
	return a
}

// negation returns the complement of a literal.
func negation(f *Formula) *Formula {
	switch f.Op {
	case True:
		return &Formula{Op: False}
	case False:
		return &Formula{Op: True}
	case Not:
		return f.L
	}
	return &Formula{Op: Not, L: f}
}
