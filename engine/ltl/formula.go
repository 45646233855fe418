// Package ltl checks linear temporal logic properties of programs explored
// by package search.
//
// A formula is parsed from text (Parse), negated and translated into a
// generalized Büchi automaton with the tableau construction of Gerth,
// Peled, Vardi and Wolper (Automaton), and Check looks for an accepting,
// weakly fair cycle in the product of that automaton with the program's
// state graph (search.Graph) with a nested depth-first search. A violation is a lasso: a schedule to a
// state, and a cycle from it back to it that a fair scheduler may repeat
// forever while the property fails.
//
// Syntax, loosest binding first:
//
//	f -> g          implication (right associative)
//	f || g          or
//	f && g          and
//	f U g, f R g    until, release (right associative)
//	! f, X f, F f, G f
//	name, true, false, ( f )
//
// A name is a proposition the program registers (stdbg_prop in C,
// sthread.Prop in Go): letters, digits, '_' and '.', not starting with a
// digit.
package ltl

import (
	"fmt"
	"strings"
	"unicode"
)

// Op is the operator of a formula node.
type Op int

// Operators.
const (
	True Op = iota
	False
	Atom
	Not
	And
	Or
	Implies
	Next
	Finally
	Globally
	Until
	Release
)

// Formula is an LTL formula.
type Formula struct {
	Op   Op
	Name string   // Atom
	L, R *Formula // operands: L for unary operators
}

// String renders f fully parenthesised, so that equal formulas print
// equally.
func (f *Formula) String() string {
	switch f.Op {
	case True:
		return "true"
	case False:
		return "false"
	case Atom:
		return f.Name
	case Not:
		return "!" + f.L.String()
	case Next:
		return "X " + f.L.String()
	case Finally:
		return "F " + f.L.String()
	case Globally:
		return "G " + f.L.String()
	}
	op := map[Op]string{And: "&&", Or: "||", Implies: "->", Until: "U", Release: "R"}[f.Op]
	return "(" + f.L.String() + " " + op + " " + f.R.String() + ")"
}

// Atoms returns the names of the propositions f uses, each once, in order
// of appearance.
func (f *Formula) Atoms() []string {
	var out []string
	seen := map[string]bool{}
	var walk func(*Formula)
	walk = func(g *Formula) {
		if g == nil {
			return
		}
		if g.Op == Atom && !seen[g.Name] {
			seen[g.Name] = true
			out = append(out, g.Name)
		}
		walk(g.L)
		walk(g.R)
	}
	walk(f)
	return out
}

// Parse reads a formula.
func Parse(text string) (*Formula, error) {
	toks, err := lex(text)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	f, err := p.implies()
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.toks) {
		return nil, fmt.Errorf("unexpected %q at position %d", p.toks[p.pos].text, p.toks[p.pos].at+1)
	}
	return f, nil
}

type token struct {
	text string
	at   int
}

func lex(s string) ([]token, error) {
	var out []token
	for i := 0; i < len(s); {
		c := rune(s[i])
		switch {
		case unicode.IsSpace(c):
			i++
		case strings.HasPrefix(s[i:], "->"), strings.HasPrefix(s[i:], "&&"), strings.HasPrefix(s[i:], "||"):
			out = append(out, token{s[i : i+2], i})
			i += 2
		case c == '!' || c == '(' || c == ')':
			out = append(out, token{string(c), i})
			i++
		case c == '_' || unicode.IsLetter(c):
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '.' || unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j]))) {
				j++
			}
			out = append(out, token{s[i:j], i})
			i = j
		default:
			return nil, fmt.Errorf("unexpected character %q at position %d", c, i+1)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty formula")
	}
	return out, nil
}

type parser struct {
	toks  []token
	pos   int
	depth int // nesting of the rule being parsed
}

// maxNesting bounds how deeply a formula may nest (parentheses, unary and
// right-associative operators): the parser recurses once per level.
const maxNesting = 500

// enter counts one more level of nesting; leave undoes it.
func (p *parser) enter() error {
	p.depth++
	if p.depth > maxNesting {
		return fmt.Errorf("the formula nests more than %d levels deep", maxNesting)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

func (p *parser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos].text
	}
	return ""
}

func (p *parser) implies() (*Formula, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	l, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.peek() == "->" {
		p.pos++
		r, err := p.implies()
		if err != nil {
			return nil, err
		}
		return &Formula{Op: Implies, L: l, R: r}, nil
	}
	return l, nil
}

func (p *parser) or() (*Formula, error) {
	l, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.peek() == "||" {
		p.pos++
		r, err := p.and()
		if err != nil {
			return nil, err
		}
		l = &Formula{Op: Or, L: l, R: r}
	}
	return l, nil
}

func (p *parser) and() (*Formula, error) {
	l, err := p.until()
	if err != nil {
		return nil, err
	}
	for p.peek() == "&&" {
		p.pos++
		r, err := p.until()
		if err != nil {
			return nil, err
		}
		l = &Formula{Op: And, L: l, R: r}
	}
	return l, nil
}

func (p *parser) until() (*Formula, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	switch p.peek() {
	case "U", "R":
		op := Until
		if p.peek() == "R" {
			op = Release
		}
		p.pos++
		r, err := p.until()
		if err != nil {
			return nil, err
		}
		return &Formula{Op: op, L: l, R: r}, nil
	}
	return l, nil
}

func (p *parser) unary() (*Formula, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	if p.pos >= len(p.toks) {
		return nil, fmt.Errorf("formula ends too early")
	}
	t := p.toks[p.pos]
	switch t.text {
	case "!", "X", "F", "G":
		p.pos++
		f, err := p.unary()
		if err != nil {
			return nil, err
		}
		op := map[string]Op{"!": Not, "X": Next, "F": Finally, "G": Globally}[t.text]
		return &Formula{Op: op, L: f}, nil
	case "(":
		p.pos++
		f, err := p.implies()
		if err != nil {
			return nil, err
		}
		if p.peek() != ")" {
			return nil, fmt.Errorf("missing ) for the ( at position %d", t.at+1)
		}
		p.pos++
		return f, nil
	case ")", "->", "&&", "||", "U", "R":
		return nil, fmt.Errorf("unexpected %q at position %d", t.text, t.at+1)
	case "true":
		p.pos++
		return &Formula{Op: True}, nil
	case "false":
		p.pos++
		return &Formula{Op: False}, nil
	}
	p.pos++
	return &Formula{Op: Atom, Name: t.text}, nil
}

// nnf returns f, negated if neg, in negation normal form over true, false,
// literals, &&, ||, X, U and R.
func nnf(f *Formula, neg bool) *Formula {
	switch f.Op {
	case True, False:
		if neg == (f.Op == True) {
			return &Formula{Op: False}
		}
		return &Formula{Op: True}
	case Atom:
		if neg {
			return &Formula{Op: Not, L: f}
		}
		return f
	case Not:
		return nnf(f.L, !neg)
	case And, Or:
		op := f.Op
		if neg {
			op = map[Op]Op{And: Or, Or: And}[op]
		}
		return &Formula{Op: op, L: nnf(f.L, neg), R: nnf(f.R, neg)}
	case Implies:
		return nnf(&Formula{Op: Or, L: &Formula{Op: Not, L: f.L}, R: f.R}, neg)
	case Next:
		return &Formula{Op: Next, L: nnf(f.L, neg)}
	case Finally:
		return nnf(&Formula{Op: Until, L: &Formula{Op: True}, R: f.L}, neg)
	case Globally:
		return nnf(&Formula{Op: Release, L: &Formula{Op: False}, R: f.L}, neg)
	case Until, Release:
		op := f.Op
		if neg {
			op = map[Op]Op{Until: Release, Release: Until}[op]
		}
		return &Formula{Op: op, L: nnf(f.L, neg), R: nnf(f.R, neg)}
	}
	panic(fmt.Sprintf("ltl: unknown operator %d", f.Op))
}
