// Package rtnames holds the names through which stdbg's Go runtime (package
// sthread and its packages) is reached from outside the target process: the
// environment variables the command line sets, the function and variable a
// debugger stops at and reads, and which functions are the runtime's. The
// runtime, the command line, the symbolizer and the debugger bridge
// (package dlvbridge) all import it, so none of them needs the others for a
// name.
package rtnames

import "strings"

const (
	// ReplayEnv names the environment variable that makes a Go target run
	// one schedule instead of searching ("1;1;2").
	ReplayEnv = "STDBG_REPLAY_SCHEDULE"
	// RandSeedEnv names the environment variable that sets the seed of
	// the random numbers of a Go target's executions.
	RandSeedEnv = "STDBG_RAND_SEED"

	// SearchEnv names the environment variable that hands a Go target a
	// whole search to run in its process (package targetsearch's Spec,
	// as JSON): the runtime searches when it is set.
	SearchEnv = "STDBG_SEARCH"

	// Package is the import path of the runtime.
	Package = "github.com/stdbg/stdbg/sthread"
	// HookFunc is the function a replay calls before every step, as Delve
	// spells it.
	HookFunc = Package + ".stepHook"
	// StateVar is the expression of the replay state published at
	// HookFunc, as Delve spells it.
	StateVar = `"` + Package + `".debugState`
)

// IsRuntimeFunc reports whether the Go function of the qualified name (as
// the Go runtime and DWARF spell it: "github.com/stdbg/stdbg/sthread.Go",
// "github.com/stdbg/stdbg/sthread/sync.(*Mutex).Lock") belongs to package
// sthread or to one of the packages under it (its runtime, its mirrors of
// the standard library), not counting their tests' packages.
func IsRuntimeFunc(name string) bool {
	rest, ok := strings.CutPrefix(name, Package)
	if !ok {
		return false
	}
	if strings.HasPrefix(rest, ".") {
		return true
	}
	if !strings.HasPrefix(rest, "/") {
		return false // another package, such as sthread_test
	}
	dot := strings.IndexByte(rest, '.')
	return dot > 1 && !strings.HasSuffix(rest[:dot], "_test")
}
