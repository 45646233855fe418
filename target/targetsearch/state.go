package targetsearch

import "github.com/stdbg/stdbg/engine/search"

// StateError is search.StateError, the error of a search inside a target
// that cannot go on in one process. It is defined in package search so
// that the Go runtime, which returns it, does not import this package.
type StateError = search.StateError
