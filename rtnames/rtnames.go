// Package rtnames holds the names through which stdbg's Go runtime (package
// sthread) is reached from outside the target process: the environment
// variables the command line sets, and the function and variable a
// debugger stops at and reads. The runtime, the command line and the
// debugger bridge (package dlvbridge) all import it, so none of them needs
// the others for a name.
package rtnames

const (
	// ReplayEnv names the environment variable that makes a Go target run
	// one schedule instead of searching ("1;1;2").
	ReplayEnv = "STDBG_REPLAY_SCHEDULE"
	// RandSeedEnv names the environment variable that sets the seed of
	// the random numbers of a Go target's executions.
	RandSeedEnv = "STDBG_RAND_SEED"

	// Package is the import path of the runtime.
	Package = "github.com/stdbg/stdbg/sthread"
	// HookFunc is the function a replay calls before every step, as Delve
	// spells it.
	HookFunc = Package + ".stepHook"
	// StateVar is the expression of the replay state published at
	// HookFunc, as Delve spells it.
	StateVar = `"` + Package + `".debugState`
)
