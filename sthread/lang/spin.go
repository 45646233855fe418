package lang

import "github.com/stdbg/stdbg/sthread/internal/rt"

// SpinEnter is what a for loop whose iterations can only change what the
// checker sees becomes as the goroutine enters it (goinstr marks such
// loops, docs/spin.md): under a check it says that the goroutine enters
// the loop named loop anew. Outside a check it does nothing.
//
//go:norace
func SpinEnter(loop uint64) { rt.SpinEnter(loop) }

// SpinHead starts each iteration of such a loop: under a check, the
// goroutine's next scheduling point claims the state of the loop's head in
// its entry, which the checker compares with the earlier ones to tell an
// iteration that changed nothing. Outside a check it does nothing.
//
//go:norace
func SpinHead(loop uint64) { rt.SpinHead(loop) }
