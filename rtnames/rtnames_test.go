package rtnames_test

import (
	"fmt"

	"github.com/stdbg/stdbg/rtnames"
)

// Example shows how a debugger finds the replay of a Go target.
func Example() {
	fmt.Println("break at", rtnames.HookFunc)
	fmt.Println("read", rtnames.StateVar)
	// Output:
	// break at github.com/stdbg/stdbg/sthread.stepHook
	// read "github.com/stdbg/stdbg/sthread".debugState
}
