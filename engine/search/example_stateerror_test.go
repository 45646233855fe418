package search_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/stdbg/stdbg/engine/search"
)

// A target that cannot put back what an execution left in its process
// fails its search with a StateError naming the variable; it is
// ErrNondeterministic for the caller, which searches again with a
// fresh process per execution.
func ExampleStateError() {
	var err error = fmt.Errorf("searching in the target: %w",
		&search.StateError{State: "nextID (ids.go:9): holds a closure (example.com/m.init.counter.func1), whose captured variables cannot be put back"})
	var se *search.StateError
	fmt.Println(errors.Is(err, search.ErrNondeterministic), errors.As(err, &se))
	fmt.Println(se.State[:strings.Index(se.State, "): ")+1])
	// Output:
	// true true
	// nextID (ids.go:9)
}
