package lang

import "reflect"

// ChanRangeLoop is the range clause of for v := range c rewritten into a
// three-clause loop, which any language version compiles (a range over a
// function's iterator, as ChanRange gives, needs Go 1.23) and which
// declares v in its init, so that v is one variable for all iterations
// or one per iteration as the module's language version says of range
// loops:
//
//	for next, v, ok := lang.ChanRangeLoop(c); ok; v, ok = next(v) {
//
// It receives the first value; next receives each of the others, and
// gives back the value it is passed when c is closed: the loop's variable
// keeps the last value received, as a range loop's does.
//
//go:noinline
//go:norace
func ChanRangeLoop[T any](c <-chan T) (next func(T) (T, bool), v T, ok bool) {
	next = func(last T) (T, bool) {
		if v, ok := chanRecvRange(c); ok {
			return v, true
		}
		return last, false
	}
	v, ok = chanRecvRange(c)
	return next, v, ok
}

// ChanRangeSet is the range clause of for x = range c, x an addressable
// expression that ptr returns the address of, evaluated again for each
// value as Go evaluates x:
//
//	for next, ok := lang.ChanRangeSet(func() any { return &x }, c); ok; ok = next() {
//
// It receives the first value; next receives each of the others. Each is
// assigned to x as an assignment would (x may be an interface).
//
//go:noinline
//go:norace
func ChanRangeSet[T any](ptr func() any, c <-chan T) (next func() bool, ok bool) {
	recv := func() bool {
		v, ok := chanRecvRange(c)
		if ok {
			reflect.ValueOf(ptr()).Elem().Set(reflect.ValueOf(&v).Elem())
		}
		return ok
	}
	return recv, recv()
}
