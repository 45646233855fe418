package lang

import "github.com/stdbg/stdbg/sthread/internal/rt"

// A PlainCase is one communication case of a select statement on real
// channels, made by RecvCaseOf or SendCaseOf and run by SelectOf.
type PlainCase interface {
	selectCase() rt.Case
}

// RecvCase is the case <-c of a select statement; after SelectOf chose it,
// Value returns what it received.
type RecvCase[T any] struct {
	c  chan T
	v  T
	ok bool
}

// RecvCaseOf returns the case that receives from c.
//
//go:noinline
//go:norace
func RecvCaseOf[T any](c <-chan T) *RecvCase[T] { return &RecvCase[T]{c: rt.Bidi[T](c)} }

// Value returns the value received and whether it was sent (false: the
// channel was closed), like v, ok := <-c.
//
//go:norace
func (rc *RecvCase[T]) Value() (T, bool) { return rc.v, rc.ok }

// Val returns the value received, like v := <-c.
//
//go:norace
func (rc *RecvCase[T]) Val() T { return rc.v }

//go:norace
func (rc *RecvCase[T]) selectCase() rt.Case {
	return rt.CheckedChan(rc.c).RecvCase(&rc.v, &rc.ok)
}

// SendCase is the case c <- v of a select statement.
type SendCase[T any] struct {
	c chan T
	v T
}

// SendCaseOf returns the case that sends v on c.
//
//go:noinline
//go:norace
func SendCaseOf[T any](c chan<- T, v T) *SendCase[T] { return &SendCase[T]{c: rt.Bidi[T](c), v: v} }

//go:norace
func (sc *SendCase[T]) selectCase() rt.Case {
	return rt.CheckedChan(sc.c).SendCase(sc.v)
}

// SelectOf runs a select statement: it returns the index of the case that
// proceeded, or -1 for the default case when hasDefault is set and no case
// can proceed.
func SelectOf(hasDefault bool, cases ...PlainCase) int {
	sc := make([]rt.Case, 0, len(cases)+1)
	for _, c := range cases {
		sc = append(sc, c.selectCase())
	}
	if hasDefault {
		sc = append(sc, rt.Default())
	}
	i := rt.Select(sc)
	if i == len(cases) {
		return -1
	}
	return i
}
