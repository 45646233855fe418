package search

// StateError is the error of a search that cannot go on in one process: an
// execution left the process's state changed in a way the runtime cannot
// put back before the next one (a closure that captured variables, a value
// of another package changed in place, ...). State says which, naming the
// package-level variable it is reached from: "next (count.go:12): holds a
// closure (example.com/m.counter.func1), whose captured variables cannot be
// put back". It is ErrNondeterministic for errors.Is: the search runs again
// with a fresh process per execution. The Go runtime (sthread) fails a
// search inside a target with it, and package targetsearch carries it to
// stdbg.
type StateError struct {
	State string
}

func (e *StateError) Error() string {
	return "the program keeps state in its process that cannot be put back before the next execution: " + e.State
}

// Is reports whether target is ErrNondeterministic.
func (e *StateError) Is(target error) bool { return target == ErrNondeterministic }
