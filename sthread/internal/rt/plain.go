package rt

import "unsafe"

// Plain Go's channels. A real channel of plain Go keeps its type: under a
// check its state (buffer, closed, waiters) lives in the model, keyed by
// the channel's identity, and values sent under the check never enter the
// real channel.

// PlainChan returns the Chan that stands for the real channel c in the
// running execution, or ok false when c's operations pass through.
//
//go:norace
func PlainChan[T any](c chan T) (Chan[T], bool) {
	if !hooked.Load() {
		return Chan[T]{}, false
	}
	r := checking.Load()
	if r == nil {
		return Chan[T]{}, false
	}
	ex := r.ex.Load()
	if ex == nil {
		return Chan[T]{}, false
	}
	if c == nil {
		return Chan[T]{}, true
	}
	key := uint64(uintptr(*(*unsafe.Pointer)(unsafe.Pointer(&c))))
	if p := ex.plain.get(key); p != nil {
		return Chan[T]{C: c, S: (*ChanState[T])(p)}, true
	}
	s := &ChanState[T]{cap: cap(c), info: plainInfo{hchan: hchanOf(c)}}
	// The entry keeps the channel alive: its address names it for the
	// whole execution.
	ex.plain.put(key, unsafe.Pointer(s), c)
	return Chan[T]{C: c, S: s}, true
}

// CheckedChan returns the Chan that stands for the real channel c: under
// the checker, its state in the running execution.
//
//go:norace
func CheckedChan[T any](c chan T) Chan[T] {
	pc, ok := PlainChan(c)
	if !ok {
		return Chan[T]{C: c}
	}
	return pc
}

// Bidi returns c as a bidirectional channel: a channel's direction is a
// property of its type, not of the value.
//
//go:norace
func Bidi[T any, C ~chan<- T | ~<-chan T | ~chan T](c C) chan T {
	return *(*chan T)(unsafe.Pointer(&c))
}
